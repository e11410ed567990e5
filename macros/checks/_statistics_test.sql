{#-
  The checks behind the package's data tests (macros/generic_tests). They read a model's stored
  statistics, never its data. When a test runs, it
    1. plans the model as a dry run does (describe): a view, an unknown column is refused
       (_test_target);
    2. reads, all at once, the model's file listing and stored states (analyze_stale's check:
       statistics taken before the files last changed are stale, and a test never passes on them)
       and the statistics rows it checks: the current ones, or those of the latest runs or of the
       partitions (_test_read). The first test of a model in a dbt invocation reads them; the
       model's other tests of that invocation reuse what it read (the model is built once, before
       its tests, in an invocation);
  and returns its failures as rows (measure, column, partition, value, expected band, message),
  logging each message. Compiling without running tests (dbt compile, docs generate) reads nothing.
-#}

{#- What the tests measure, from a table or partition row `t` of the statistics and its column's
    row `s` of the same run (none when the column has no statistics there). -#}
{% macro _test_measure(measure, t, s) %}
  {%- set rows, nulls = t.row_count, (s or {}).get('null_count') -%}
  {%- set values = {
    'row_count': rows,
    'null_fraction': nulls / rows if rows and nulls is not none else none,
    'distinct_count': (s or {}).get('distinct_count'),
    'mean': (s or {}).get('mean'),
    'non_null_count': rows - nulls if rows is not none and nulls is not none else none,
  } -%}
  {{ return(values[measure]) }}
{% endmacro %}

{#- A test that the current value of a measure is within [low, high] (either may be none). -#}
{% macro _test_band(test, model, measure, column_name, low, high) %}
  {%- do dbt_analyze._check_test_band(test, low, high) -%}
  {%- set target = dbt_analyze._test_read(test, dbt_analyze._test_target(test, model, column_name)) -%}
  {%- if target is string -%}{{ return(target) }}{%- endif -%}
  {%- set row = target.rows[0] -%}
  {%- set value = dbt_analyze._test_measure(measure, row.t, row.s) -%}
  {%- set failures = dbt_analyze._test_missing_column(target, row) -%}
  {%- if not failures and (value is none or (low is not none and value < low)
                           or (high is not none and value > high)) -%}
    {%- do failures.append(dbt_analyze._test_failure(
          dbt_analyze._test_subject(target, measure) ~ ' is ' ~ dbt_analyze._test_number(value) ~ '; expected '
          ~ dbt_analyze._test_band_text(low, high) ~ ' (' ~ dbt_analyze._test_source(row) ~ ')', value, low, high)) -%}
  {%- endif -%}
  {{ return(dbt_analyze._test_failures_sql(test, target, measure, failures)) }}
{% endmacro %}

{#- A test that the latest value of a measure is in line with earlier ones: the latest run against
    the `history` runs before it (over='runs'), or the newest partition against the `history`
    partitions before it (over='partitions'), by a robust score: |value - median| over
    1.4826 MAD (at least 1% of |median|) must not exceed `sensitivity`. With fewer than 3 earlier
    values the test passes and says so. -#}
{% macro _test_anomaly(test, model, measure, column_name, over, history, sensitivity) %}
  {%- do dbt_analyze._check_test_anomaly(test, over, history, sensitivity) -%}
  {%- set target = dbt_analyze._test_target(test, model, column_name, over) -%}
  {%- set target = dbt_analyze._test_read(test, target, over, history | int + 1) -%}
  {%- if target is string -%}{{ return(target) }}{%- endif -%}
  {%- set measured = [] -%}
  {%- for row in target.rows -%}
    {%- do measured.append({'row': row, 'value': dbt_analyze._test_measure(measure, row.t, row.s)}) -%}
  {%- endfor -%}
  {%- set latest, earlier = target.rows[0], measured[1:] | selectattr('value', 'ne', none) | list -%}
  {%- set failures = dbt_analyze._test_missing_column(target, latest) -%}
  {%- if not failures and earlier | length < 3 -%}
    {{ log('dbt_analyze: ' ~ test ~ ': ' ~ target.name ~ ' has ' ~ earlier | length ~ ' earlier ' ~ over
           ~ ' with statistics; 3 are needed to judge', info=True) }}
  {%- elif not failures -%}
    {%- set values = earlier | map(attribute='value') | list -%}
    {%- set median = dbt_analyze._median(values) -%}
    {%- set deviations = [] -%}
    {%- for value in values -%}{%- do deviations.append((value - median) | abs) -%}{%- endfor -%}
    {%- set mad = dbt_analyze._median(deviations) -%}
    {%- set spread = [1.4826 * mad, 0.01 * median | abs] | max -%}
    {%- set low, high = median - sensitivity * spread, median + sensitivity * spread -%}
    {%- set value = measured[0].value -%}
    {%- if value is none or value < low or value > high -%}
      {%- set partition = latest.partition_spec if over == 'partitions' else none -%}
      {%- set names = earlier | map(attribute='row') | map(attribute='run_id' if over == 'runs' else 'partition_spec')
                      | list -%}
      {%- do failures.append(dbt_analyze._test_failure(
            dbt_analyze._test_subject(target, measure) ~ (' in partition ' ~ partition if partition else '')
            ~ ' is ' ~ dbt_analyze._test_number(value) ~ ' (' ~ dbt_analyze._test_source(latest) ~ '); expected '
            ~ dbt_analyze._test_band_text(low, high) ~ ': median ' ~ dbt_analyze._test_number(median)
            ~ ', MAD ' ~ dbt_analyze._test_number(mad) ~ ', sensitivity ' ~ sensitivity
            ~ ', from the ' ~ earlier | length ~ ' ' ~ over ~ ' before it (' ~ names | last ~ ' … ' ~ names | first
            ~ ')',
            value, low, high, partition)) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(dbt_analyze._test_failures_sql(test, target, measure, failures)) }}
{% endmacro %}

{#- A test that a column's stored min and max lie within [low, high], compared as values of the
    column's type (numbers, dates, timestamps, strings). -#}
{% macro _test_values_between(test, model, column_name, low, high) %}
  {%- do dbt_analyze._check_test_band(test, low, high, numbers=false) -%}
  {%- set target = dbt_analyze._test_read(test, dbt_analyze._test_target(test, model, column_name)) -%}
  {%- if target is string -%}{{ return(target) }}{%- endif -%}
  {%- set row = target.rows[0] -%}
  {%- set stored = row.s or {} -%}
  {%- set lowest, highest = stored.get('min_value'), stored.get('max_value') -%}
  {#- The given and the stored values compared as values of the column's type, by Spark (no table is read). -#}
  {%- set typed = {} -%}
  {%- for name, value in {'low': low, 'high': high, 'lowest': lowest, 'highest': highest}.items() -%}
    {%- do typed.update({name: dbt_analyze._as_type_sql(value, target.data_type, rendered=false) if value is not none
                         else 'null'}) -%}
  {%- endfor -%}
  {%- set compared = run_query('select ' ~ [typed.low ~ ' is not null', typed.high ~ ' is not null',
                                            typed.low ~ ' > ' ~ typed.high,
                                             typed.lowest ~ ' < ' ~ typed.low, typed.highest ~ ' > ' ~ typed.high]
                                                 | join(', '))[0] -%}
  {%- for name, value, castable in [('min', low, compared[0]), ('max', high, compared[1])]
      if value is not none and not castable -%}
    {%- do dbt_analyze._test_error(test, name ~ " '" ~ value ~ "' is not a value of " ~ column_name ~ "'s type "
                                   ~ target.data_type) -%}
  {%- endfor -%}
  {%- if compared[2] -%}
    {%- do dbt_analyze._test_error(test, 'min (' ~ low ~ ') is above max (' ~ high ~ ')') -%}
  {%- endif -%}
  {%- set failures = dbt_analyze._test_missing_column(target, row) -%}
  {#- A column of NULLs only has no min or max: no value is out of range (as dbt's accepted_range). -#}
  {%- if not failures and (compared[3] or compared[4]) -%}
    {%- do failures.append(dbt_analyze._test_failure(
          'the values of ' ~ target.name ~ '.' ~ column_name ~ ' range from ' ~ lowest ~ ' to ' ~ highest
              ~ '; expected '
          ~ dbt_analyze._test_band_text(low, high) ~ ' (' ~ dbt_analyze._test_source(row) ~ ')',
          lowest ~ ' … ' ~ highest, low, high)) -%}
  {%- endif -%}
  {{ return(dbt_analyze._test_failures_sql(test, target, 'min and max', failures)) }}
{% endmacro %}

{#- A test that a column's distinct count equals its non-null rows within the HLL sketch's error:
    3 relative standard errors (1.04 / sqrt(2^lgK): 2.4% at lgK 14). -#}
{% macro _test_probably_unique(test, model, column_name) %}
  {%- set target = dbt_analyze._test_read(test, dbt_analyze._test_target(test, model, column_name)) -%}
  {%- if target is string -%}{{ return(target) }}{%- endif -%}
  {%- set row = target.rows[0] -%}
  {%- set distinct = dbt_analyze._test_measure('distinct_count', row.t, row.s) -%}
  {%- set non_null = dbt_analyze._test_measure('non_null_count', row.t, row.s) -%}
  {%- set tolerance = 3 * 1.04 / (2 ** (dbt_analyze._var('dbt_analyze_hll_lg_k') | int)) ** 0.5 -%}
  {%- set failures = dbt_analyze._test_missing_column(target, row) -%}
  {%- if not failures and non_null and (distinct or 0) < non_null * (1 - tolerance) -%}
    {%- do failures.append(dbt_analyze._test_failure(
          target.name ~ '.' ~ column_name ~ ' has about ' ~ dbt_analyze._test_number(distinct) ~ ' distinct values in '
          ~ dbt_analyze._test_number(non_null) ~ " non-null rows: not unique beyond the sketch's error of "
          ~ '%.1f' | format(100 * tolerance) ~ '% (' ~ dbt_analyze._test_source(row) ~ ')', distinct,
          non_null * (1 - tolerance), non_null)) -%}
  {%- endif -%}
  {{ return(dbt_analyze._test_failures_sql(test, target, 'distinct_count', failures)) }}
{% endmacro %}

{#- What a test checks: a dict (name, column, run: a dry run's, plan, data_type: the column's),
    or the SQL of no failure when the test is only compiled. Then _test_read. -#}
{% macro _test_target(test, model, column_name, over=none) %}
  {%- set target = {'name': model.schema ~ '.' ~ model.identifier, 'column': column_name} -%}
  {%- if not execute or flags.WHICH not in ('test', 'build', 'retry') -%}
    {{ return(dbt_analyze._test_failures_sql(test, target, '', [])) }}
  {%- endif -%}
  {%- do dbt_analyze._await_statistics(model) -%}
  {%- set run = dbt_analyze._new_run({'relation': model, 'dry_run': true}) -%}
  {%- set request = dbt_analyze._build_request({'relation': model, 'columns': [column_name] if column_name else none},
                                               run) -%}
  {%- set plan = dbt_analyze._plan_target(request, run) -%}
  {%- if over == 'partitions' and not plan.table.partition_columns -%}
    {%- do dbt_analyze._test_error(test, "over='partitions' needs a partitioned table; " ~ target.name
                                   ~ ' is not partitioned') -%}
  {%- endif -%}
  {%- do target.update({'run': run, 'plan': plan,
                        'data_type': (plan.columns | first).data_type if column_name else none}) -%}
  {{ return(target) }}
{% endmacro %}

{#- The target's rows (see _test_snapshot), or the SQL of the test's one failure when there is
    nothing to check (no statistics, stale ones); a target that is SQL already is passed on. -#}
{% macro _test_read(test, target, over=none, limit=1) %}
  {%- if target is string -%}{{ return(target) }}{%- endif -%}
  {%- set key = ['test statistics', invocation_id, target.name, over or 'current', limit] | join(':') -%}
  {%- set snapshot = adapter.dbt_analyze_once(key, dbt_analyze._test_snapshot, target, over, limit) -%}
  {%- set status = snapshot.status -%}
  {%- set table_status = status.get('', ['new', none]) -%}
  {%- set analyze = 'add the post-hook {{ dbt_analyze.analyze() }} to the model, or run dbt run-operation analyze_table'
                    ~ " --args '{relation: " ~ target.name ~ "}'" -%}
  {%- set message = none -%}
  {%- if snapshot.rows is none or status.values() | map(attribute=1) | reject('none') | list | length == 0 -%}
    {%- set message = target.name ~ ' has no statistics: ' ~ analyze -%}
  {%- elif table_status[0] != 'fresh' -%}
    {%- set changed = [] -%}
    {%- for spec, value in status.items() if spec and value[0] != 'fresh' -%}
      {%- do changed.append(spec ~ ' (' ~ value[0] ~ ')') -%}
    {%- endfor -%}
    {%- set message = 'the statistics of ' ~ target.name ~ ' are stale: its files changed after they were collected'
                      ~ (' (at ' ~ table_status[1] ~ ')' if table_status[1] else '')
                      ~ (', in partitions ' ~ dbt_analyze._brief_list(changed) if changed else '') ~ '; ' ~ analyze -%}
  {%- endif -%}
  {%- if message -%}
    {{ return(dbt_analyze._test_failures_sql(test, target, '', [dbt_analyze._test_failure(message)])) }}
  {%- endif -%}
  {#- Newest first, each with t, its table's or partition's statistics, and s, its column's (or none). -#}
  {%- set columns = {} -%}
  {%- for row in snapshot.rows if target.column and row.column_name == target.column
      and row.data_type == target.data_type -%}
    {%- do columns.update({row.run_id ~ '/' ~ row.partition_spec: row}) -%}
  {%- endfor -%}
  {%- set rows = [] -%}
  {%- for row in snapshot.rows | selectattr('column_name', 'equalto', '')
      | sort(attribute='collected_at,partition_spec', reverse=true) -%}
    {%- do rows.append({'run_id': row.run_id, 'partition_spec': row.partition_spec, 'collected_at': row.collected_at,
                        't': row,
                        's': columns.get(row.run_id ~ '/' ~ row.partition_spec)}) -%}
  {%- endfor -%}
  {%- do target.update({'rows': rows}) -%}
  {{ return(target) }}
{% endmacro %}

{#- What the tests of a table read in one dbt invocation, at once: its file listing and states
    (its status: {spec: [fresh | stale | new | dropped, collected_at]}) and its statistics rows of
    every column (rows: none when there is no storage), newest first: the current rows of the
    table (over none), its latest `limit` succeeded runs' table rows (over 'runs'), or its current
    rows of its newest `limit` partitions (over 'partitions'). -#}
{% macro _test_snapshot(target, over, limit) %}
  {%- set table = target.plan.table -%}
  {%- if over == 'runs' -%}
    {%- set succeeded = 'select run_id from ' ~ dbt_analyze._storage_relation('analyze_run_events')
                        ~ " where event = 'succeeded' and " ~ dbt_analyze._table_where_sql(table) -%}
    {%- set source = 'select h.* from ' ~ dbt_analyze._storage_relation('statistics_history') ~ ' h left semi join ('
                     ~ succeeded
                     ~ ') r on h.run_id = r.run_id where ' ~ dbt_analyze._table_where_sql(table, 'h.')
                     ~ " and h.partition_spec = ''" -%}
    {%- set newest = 'run_id' -%}
  {%- else -%}
    {%- set source = 'select * from (' ~ dbt_analyze._current_rows_sql(table=table) ~ ') where partition_spec '
                     ~ ("<> ''" if over == 'partitions' else "= ''") -%}
    {%- set newest = 'partition_spec' -%}
  {%- endif -%}
  {#- Rows of one run (and partition) share its collected_at: the newest `limit` of them by rank. -#}
  {%- set sql -%}
    select run_id, partition_spec, column_name, data_type, cast(collected_at as string) as collected_at,
           row_count, null_count, distinct_count, mean,
           {{ dbt_analyze._rendered_sql('s.min_value') }} as min_value,
           {{ dbt_analyze._rendered_sql('s.max_value') }} as max_value
    from (select *, dense_rank() over (order by collected_at desc, {{ newest }} desc) as age from ({{ source }})) s
    where age <= {{ limit | int }}
  {%- endset -%}
  {%- set read = dbt_analyze._read_listings_states_and([target.plan], target.run, [dbt_analyze._json_rows_sql(sql)]) -%}
  {{ return({'status': dbt_analyze._statuses_of([target.plan], read.states)[0],
             'rows': dbt_analyze._parse_json_rows(read.others[0]) if read.others is not none else none}) }}
{% endmacro %}

{#- One failure of a test: its message, and the value and band it was judged by. -#}
{% macro _test_failure(message, value=none, low=none, high=none, partition_spec=none) %}
  {{ return({'message': message, 'value': value, 'low': low, 'high': high, 'partition_spec': partition_spec}) }}
{% endmacro %}

{#- The SQL of a test's failures (none: a query of no rows); each message is logged. -#}
{% macro _test_failures_sql(test, target, measure, failures) %}
  {%- set rows = [] -%}
  {%- for failure in failures -%}
    {{ log('dbt_analyze: ' ~ test ~ ' failed: ' ~ failure.message, info=True) }}
    {%- set cells = [] -%}
    {%- for cell in [measure, target.column, failure.partition_spec, failure.value, failure.low, failure.high,
                     failure.message] -%}
      {%- do cells.append(dbt_analyze._quote_literal('' if cell is none else cell | string)) -%}
    {%- endfor -%}
    {%- do rows.append('(' ~ cells | join(', ') ~ ')') -%}
  {%- endfor -%}
  {%- set columns = 'failures(measure, column_name, partition_spec, value, expected_low, expected_high, message)' -%}
  {{ return('select * from values ' ~ (rows | join(', ') if rows else "('', '', '', '', '', '', '')") ~ ' as ' ~ columns
            ~ ('' if rows else ' where false')) }}
{% endmacro %}

{#- The failure of a test of a column that has no statistics (analyzed without it), in a list. -#}
{% macro _test_missing_column(target, row) %}
  {%- if not target.column or row.s is not none -%}{{ return([]) }}{%- endif -%}
  {{ return([dbt_analyze._test_failure('column ' ~ target.column ~ ' of ' ~ target.name
                                       ~ ' has no statistics: analyze it with columns: all (or a list naming it)')]) }}
{% endmacro %}

{#- "row_count of analytics.orders" / "null_fraction of analytics.orders.status". -#}
{% macro _test_subject(target, measure) %}
  {{ return(measure ~ ' of ' ~ target.name ~ ('.' ~ target.column if target.column else '')) }}
{% endmacro %}

{% macro _test_source(row) %}
  {{ return('statistics of run ' ~ row.run_id ~ ', collected at ' ~ row.collected_at[:19]) }}
{% endmacro %}

{% macro _test_band_text(low, high) %}
  {%- if low is none -%}{{ return('at most ' ~ dbt_analyze._test_number(high)) }}
  {%- elif high is none -%}{{ return('at least ' ~ dbt_analyze._test_number(low)) }}
  {%- endif -%}
  {{ return('between ' ~ dbt_analyze._test_number(low) ~ ' and ' ~ dbt_analyze._test_number(high)) }}
{% endmacro %}

{#- A number for a message: whole numbers as they are, others to 4 significant digits. -#}
{% macro _test_number(value) %}
  {%- if value is none -%}{{ return('unknown') }}{%- endif -%}
  {{ return('{:,}'.format(value | int) if value == value | int and value | abs < 1e15 else '%.4g' | format(value)) }}
{% endmacro %}

{% macro _median(values) %}
  {%- set ordered = values | sort -%}
  {%- set middle = ordered | length // 2 -%}
  {{ return(ordered[middle] if ordered | length % 2 else (ordered[middle - 1] + ordered[middle]) / 2) }}
{% endmacro %}

{#- Bad arguments are refused when the test is compiled to run (not while the project is parsed:
    one bad test would stop every dbt command of the project). -#}
{% macro _test_error(test, text) %}
  {{ exceptions.raise_compiler_error('dbt_analyze: ' ~ test ~ ': ' ~ text) }}
{% endmacro %}

{#- numbers=false: bounds of any type, compared by Spark as the column's values (_test_values_between). -#}
{% macro _check_test_band(test, low, high, numbers=true) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- for name, value in {'min': low, 'max': high}.items() if numbers and value is not none and value is not number -%}
    {%- do dbt_analyze._test_error(test, name ~ ' must be a number, got ' ~ value) -%}
  {%- endfor -%}
  {%- if low is none and high is none -%}
    {%- do dbt_analyze._test_error(test, 'give min, max or both') -%}
  {%- endif -%}
  {%- if numbers and low is not none and high is not none and low > high -%}
    {%- do dbt_analyze._test_error(test, 'min (' ~ low ~ ') is above max (' ~ high ~ ')') -%}
  {%- endif -%}
{% endmacro %}

{% macro _check_test_anomaly(test, over, history, sensitivity) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- if over not in ('runs', 'partitions') -%}
    {%- do dbt_analyze._test_error(test, "over must be 'runs' or 'partitions', got '" ~ over ~ "'") -%}
  {%- endif -%}
  {%- if sensitivity is not number or sensitivity <= 0 -%}
    {%- do dbt_analyze._test_error(test, 'sensitivity must be a positive number, got ' ~ sensitivity) -%}
  {%- endif -%}
  {%- if history is not number or history | int != history or history < 3 -%}
    {%- do dbt_analyze._test_error(test, 'history must be a whole number of at least 3, got ' ~ history) -%}
  {%- endif -%}
{% endmacro %}
