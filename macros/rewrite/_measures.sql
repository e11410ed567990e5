{#-
  The registry of per-partition state measures. Each exact measure is a macro
  `_measure_<name>(column_sql, category)` that returns the aggregate expression for a column of
  that type category, or none when the measure does not apply (its state field is then NULL);
  each sketch measure is its per-row input and its aggregate (_sketch_input, _sketch_aggregate).
  Every table-level statistic is derived from these fields (see merge/_merged_rows_sql.sql).

  category  | count min/max len  true/false sum/m2 hll kll top-k
  boolean   |   ✓     ✓           ✓                ✓         (its true/false counts, exact)
  integral, fractional, decimal
            |   ✓     ✓                    ✓      ✓   ✓    ✓
  date, timestamp, timestamp_ntz
            |   ✓     ✓                           ✓   ✓    ✓
  string    |   ✓     ✓     ✓                     ✓        ✓
  binary    |   ✓           ✓                     ✓
  interval  |   ✓     ✓                           ✓        ✓
  complex   |   ✓           ✓ (array/map size)
  group     |   ✓                                 ✓        (a column group's tuples: _column_groups.sql)
  other     |   ✓
-#}

{#- (field, SQL type) of a state row, in table order. -#}
{% macro _state_fields() %}
  {{ return([
    ('value_count', 'bigint'), ('min_value', 'string'), ('max_value', 'string'),
    ('len_sum', 'bigint'), ('len_max', 'bigint'), ('true_count', 'bigint'), ('false_count', 'bigint'),
    ('value_sum', 'double'), ('value_m2', 'double'),
    ('ndv_sketch', 'binary'), ('quantile_sketch', 'binary'),
    ('top_values_sketch', dbt_analyze._top_values_sketch_type()),
    ('singletons', 'bigint'), ('sketch_values', 'bigint'),
  ]) }}
{% endmacro %}

{#- item_type: the type the sketch's items are read as (a state stores them as plain strings). -#}
{% macro _top_values_sketch_type(item_type='string') %}
  {{ return('struct<sketch:binary,maxItemsTracked:int,itemDataType:' ~ item_type ~ ',itemDataTypeDDL:string>') }}
{% endmacro %}

{#- Counts that a sample scales up to the partition's exact row count. -#}
{% macro _scaled_fields() %}
  {{ return(['value_count', 'len_sum', 'true_count', 'false_count', 'value_sum', 'value_m2']) }}
{% endmacro %}

{#- Whether a measure is collected at a sketches level: `basic` is Spark's own statistic set
    (plus cheap exact extras); `full` adds KLL and top-k sketches and string min/max, which
    cost most (string comparisons keep the aggregate from Spark's code-generated path). -#}
{% macro _measure_at_level(field, category, level) %}
  {%- if level == 'full' -%}{{ return(true) }}{%- endif -%}
  {{ return(field not in dbt_analyze._distribution_sketch_fields() + ['sketch_values']
            and not (category == 'string' and field in ('min_value', 'max_value'))) }}
{% endmacro %}

{#- The collation of a string type whose values compare other than byte by byte
    ('string collate utf8_lcase' -> 'utf8_lcase'), else none. Equality under it decides what is
    distinct and which values are the same top value. -#}
{% macro _collation(data_type) %}
  {%- set parts = (data_type | lower).split(' collate ') -%}
  {%- set collation = parts[1].split(' ')[0] | trim if parts | length > 1 else none -%}
  {{ return(collation if collation != 'utf8_binary' else none) }}
{% endmacro %}

{% macro _type_category(data_type) %}
  {%- set t = data_type | lower | trim -%}
  {%- set base = t.split('(')[0].split('<')[0].split(' ')[0] -%}
  {%- if t == dbt_analyze._column_group_type() -%}{{ return('group') }}
  {%- elif base == 'boolean' -%}{{ return('boolean') }}
  {%- elif base in ('tinyint', 'smallint', 'int', 'integer', 'bigint', 'byte', 'short',
                    'long') -%}{{ return('integral') }}
  {%- elif base in ('float', 'double', 'real') -%}{{ return('fractional') }}
  {%- elif base in ('decimal', 'dec', 'numeric') -%}{{ return('decimal') }}
  {%- elif base == 'date' -%}{{ return('date') }}
  {%- elif base in ('timestamp', 'timestamp_ltz') -%}{{ return('timestamp') }}
  {%- elif base == 'timestamp_ntz' -%}{{ return('timestamp_ntz') }}
  {%- elif base in ('string', 'char', 'varchar') -%}{{ return('string') }}
  {%- elif base == 'binary' -%}{{ return('binary') }}
  {%- elif base == 'interval' -%}{{ return('interval') }}
  {%- elif base in ('array', 'map') -%}{{ return('collection') }}
  {%- elif base == 'struct' -%}{{ return('struct') }}
  {%- else -%}{{ return('other') }}
  {%- endif -%}
{% endmacro %}

{#- Spark's defaultSize of a type: what Spark's ANALYZE stores as avg/max length of fixed-width
    types, and of strings (20) and binaries (100) that have no value. The library's spark_types.py
    keeps the same facts (test_type_facts.py holds them to agreement). -#}
{% macro _default_size(data_type) %}
  {%- set t = data_type | lower | trim -%}
  {%- set category = dbt_analyze._type_category(t) -%}
  {%- set widths = {'boolean': 1, 'tinyint': 1, 'byte': 1, 'smallint': 2, 'short': 2, 'int': 4, 'integer': 4,
                    'bigint': 8, 'long': 8, 'float': 4, 'real': 4, 'double': 8, 'date': 4, 'timestamp': 8,
                    'timestamp_ltz': 8, 'timestamp_ntz': 8, 'binary': 100} -%}
  {%- if category == 'string' -%}{{ return(20) }}
  {%- elif category == 'interval' -%}{{ return(4 if 'year' in t or 'month' in t else 8) }}
  {%- elif category == 'decimal' -%}
    {%- set precision = (modules.re.findall('[0-9]+', t) or ['10'])[0] | int -%}
    {{ return(8 if precision <= 18 else 16) }}
  {%- endif -%}
  {{ return(widths.get(t.split('(')[0].split('<')[0].split(' ')[0])) }}
{% endmacro %}

{#- Categories whose values have an order (min/max, top values). -#}
{% macro _ordered_categories() %}
  {{ return(['boolean', 'integral', 'fractional', 'decimal', 'date', 'timestamp', 'timestamp_ntz', 'string',
             'interval']) }}
{% endmacro %}

{% macro _numeric_categories() %}
  {{ return(['integral', 'fractional', 'decimal']) }}
{% endmacro %}

{% macro _measure_value_count(c, category) %}{{ return('count(' ~ c ~ ')') }}{% endmacro %}

{% macro _measure_min_value(c, category) %}{{ return(dbt_analyze._extreme_state_sql('min', c,
    category)) }}{% endmacro %}

{% macro _measure_max_value(c, category) %}{{ return(dbt_analyze._extreme_state_sql('max', c,
    category)) }}{% endmacro %}

{#- A state's min or max as text (a timestamp's as its instant: _timestamp_state_sql). -#}
{% macro _extreme_state_sql(agg, c, category) %}
  {%- if category == 'timestamp' -%}{{ return(dbt_analyze._timestamp_state_sql(agg ~ '(' ~ c ~ ')')) }}{%- endif -%}
  {{ return('cast(' ~ agg ~ '(' ~ c ~ ') as string)' if category in dbt_analyze._ordered_categories() else none) }}
{% endmacro %}

{#- A timestamp as a state keeps it: its instant as text (microseconds since the epoch). As text
    in the session's zone it would change meaning under another zone, and in the hour a zone's
    clocks go through twice two instants would read the same. The merge renders it. -#}
{% macro _timestamp_state_sql(expression) %}{{ return('cast(unix_micros(' ~ expression
                                                      ~ ') as string)') }}{% endmacro %}

{#- The timestamp back from a state's text (states taken before kept text in the session's zone). -#}
{% macro _timestamp_from_state_sql(text) %}
  {{ return('coalesce(timestamp_micros(try_cast(' ~ text ~ ' as bigint)), try_cast(' ~ text ~ ' as timestamp))') }}
{% endmacro %}

{#- Character length of strings, byte length of binary, element count of arrays and maps. -#}
{% macro _length_sql(c, category) %}
  {%- if category in ('string', 'binary') -%}{{ return('length(' ~ c ~ ')') }}
  {%- elif category == 'collection' -%}{{ return('if(' ~ c ~ ' is null, null, size(' ~ c ~ '))') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{% macro _measure_len_sum(c, category) %}
  {%- set length = dbt_analyze._length_sql(c, category) -%}
  {{ return('sum(' ~ length ~ ')' if length else none) }}
{% endmacro %}

{% macro _measure_len_max(c, category) %}
  {%- set length = dbt_analyze._length_sql(c, category) -%}
  {{ return('max(' ~ length ~ ')' if length else none) }}
{% endmacro %}

{% macro _measure_true_count(c, category) %}
  {{ return('count_if(' ~ c ~ ')' if category == 'boolean' else none) }}
{% endmacro %}

{% macro _measure_false_count(c, category) %}
  {{ return('count_if(not ' ~ c ~ ')' if category == 'boolean' else none) }}
{% endmacro %}

{% macro _measure_value_sum(c, category) %}
  {{ return('sum(cast(' ~ c ~ ' as double))' if category in dbt_analyze._numeric_categories() else none) }}
{% endmacro %}

{#- Sum of squared deviations from the partition's mean (var_pop is Welford-stable). -#}
{% macro _measure_value_m2(c, category) %}
  {{ return('var_pop(cast(' ~ c ~ ' as double)) * count(' ~ c ~ ')' if category in dbt_analyze._numeric_categories()
            else none) }}
{% endmacro %}

{#- The sketches a run may feed a sample of the rows (plan.sketch_rate): the distribution's. -#}
{% macro _distribution_sketch_fields() %}
  {{ return(['quantile_sketch', 'top_values_sketch']) }}
{% endmacro %}

{#- How many non-null values of a column the distribution sketches saw: every one, or the sampled
    rows' (the flag the scan's projection draws: _scan_sql). Never scaled: the merge scales the top
    values' counts by value_count over it. -#}
{% macro _measure_sketch_values(c, category, sampled=false) %}
  {%- if not (dbt_analyze._sketch_input('quantile_sketch', c, category)
              or dbt_analyze._sketch_input('top_values_sketch', c, category)) -%}{{ return(none) }}{%- endif -%}
  {{ return('count(' ~ (dbt_analyze._sampled_input_sql(c) if sampled else c) ~ ')') }}
{% endmacro %}

{#- A distribution sketch's input where the scan feeds it a sample: NULL outside the sample, which
    the sketches skip (the top-k sketch only counts it, apart from its items). Not a FILTER on the
    aggregate: Spark evaluates a filtered imperative aggregate's rows far more slowly, so that a
    FILTER cost as much as the sketch over every row (docs/decisions/sampled-sketches.md). -#}
{% macro _sampled_input_sql(input) %}
  {{ return('if(__dbt_analyze_sampled, ' ~ input ~ ', null)') }}
{% endmacro %}

{#- The rows of `scanned` (a FROM item) with the flag _sampled_input_sql reads: a seeded Bernoulli
    draw at `rate`, in a projection of its own (Spark refuses a nondeterministic FILTER). -#}
{% macro _sampled_rows_sql(scanned, rate) %}
  {{ return('(select *, rand(' ~ (dbt_analyze._var('dbt_analyze_sample_seed') | int + 1) ~ ') < ' ~ rate
            ~ ' as __dbt_analyze_sampled from ' ~ scanned ~ ')') }}
{% endmacro %}

{#- The sketch measures are typed imperative aggregates: Spark evaluates their argument row by row
    outside its generated code. So each is split into its per-row input (_sketch_input, computed in
    the scan's projection, which is generated code) and the aggregate over that input column
    (_sketch_aggregate); _measure composes the two for callers that want one expression. -#}
{% macro _sketch_fields() %}
  {{ return(['ndv_sketch', 'quantile_sketch', 'top_values_sketch']) }}
{% endmacro %}

{#- The per-row input of a sketch measure for a column of that category, or none where it does not apply.
    hll_sketch_agg takes INT, BIGINT, STRING and BINARY, and ignores empty strings and binaries:
    integral and temporal values go in as numbers (injective); every other type as its xxhash64
    (64-bit collisions are negligible next to the sketch's error). KLL takes the numeric image of an
    ordered value. The top-k sketch takes numbers, dates and timestamps as they are (its items as
    text cost it twice the time) and intervals as text; every state stores the sketch under one
    struct type, of string items, which the merge reads back as the column's type (_top_values_sql).
    A collated string goes in as itself: the sketches hash and compare it under its collation (HLL
    gets it prefixed, since it ignores empty strings; a prefix keeps equality under every
    collation, trailing-space ones included). -#}
{% macro _sketch_input(field, c, category, collation=none) %}
  {%- if collation and field == 'ndv_sketch' -%}{{ return("concat('|', " ~ c ~ ')') }}
  {%- elif collation and field == 'top_values_sketch' -%}{{ return(c) }}
  {%- elif field == 'ndv_sketch' -%}
    {%- set inputs = {'boolean': 'cast(' ~ c ~ ' as int)', 'integral': 'cast(' ~ c ~ ' as bigint)', 'group': c,
                      'date': 'unix_date(' ~ c ~ ')', 'timestamp': 'unix_micros(' ~ c ~ ')'} -%}
    {%- if category in ('fractional', 'decimal', 'timestamp_ntz', 'string', 'binary', 'interval') -%}
      {%- do inputs.update({category: 'if(' ~ c ~ ' is null, null, xxhash64(' ~ c ~ '))'}) -%}
    {%- endif -%}
    {{ return(inputs.get(category)) }}
  {%- elif field == 'quantile_sketch' -%}
    {{ return(dbt_analyze._quantile_input_sql(c, category)) }}
  {%- elif field == 'top_values_sketch' -%}
    {%- if category in dbt_analyze._native_top_k_categories() -%}{{ return(c) }}{%- endif -%}
    {#- A boolean's top values are its true and false counts (_top_items_sql). -#}
    {{ return('cast(' ~ c ~ ' as string)' if category in dbt_analyze._ordered_categories() and category != 'boolean'
              else none) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- The aggregate of a sketch measure over its input (an expression or a projected column, sampled
    or not: _sampled_input_sql); a top-k sketch tracks `tracked` items (none: the var). -#}
{% macro _sketch_aggregate(field, input, tracked=none) %}
  {%- if input is none -%}{{ return(none) }}{%- endif -%}
  {%- if field == 'ndv_sketch' -%}
    {{ return('hll_sketch_agg(' ~ input ~ ', ' ~ (dbt_analyze._var('dbt_analyze_hll_lg_k') | int) ~ ')') }}
  {%- elif field == 'quantile_sketch' -%}
    {#- An empty KLL sketch is refused by every reader: keep none instead. -#}
    {{ return('if(count(' ~ input ~ ') > 0, kll_sketch_agg_double(' ~ input ~ ', '
              ~ (dbt_analyze._var('dbt_analyze_kll_k') | int) ~ '), null)') }}
  {%- elif field == 'top_values_sketch' -%}
    {{ return('approx_top_k_accumulate(' ~ input ~ ', '
              ~ (tracked or dbt_analyze._var('dbt_analyze_top_k_tracked')) | int ~ ')') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- The categories whose values the top-k sketch takes as they are. -#}
{% macro _native_top_k_categories() %}
  {{ return(['integral', 'fractional', 'decimal', 'date', 'timestamp', 'timestamp_ntz']) }}
{% endmacro %}

{#- Numeric image of an ordered value for KLL (days for dates, microseconds for timestamps; a
    timestamp without time zone's as if it were UTC's: through the session's zone a changed zone
    would move it, and its clocks' skipped hour would not exist). -#}
{% macro _quantile_input_sql(c, category) %}
  {%- if category in dbt_analyze._numeric_categories() -%}{{ return('cast(' ~ c ~ ' as double)') }}
  {%- elif category == 'date' -%}{{ return('cast(unix_date(' ~ c ~ ') as double)') }}
  {%- elif category == 'timestamp' -%}{{ return('cast(unix_micros(' ~ c ~ ') as double)') }}
  {%- elif category == 'timestamp_ntz' -%}
    {{ return('cast(unix_micros(make_timestamp(year(' ~ c ~ '), month(' ~ c ~ '), day(' ~ c ~ '), hour(' ~ c
              ~ '), minute(' ~ c ~ '), extract(second from '
              ~ c ~ "), 'UTC')) as double)") }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- The aggregate of one state field for one column (the registry lookup). -#}
{% macro _measure(field, column_sql, category) %}
  {%- if field in dbt_analyze._sketch_fields() -%}
    {{ return(dbt_analyze._sketch_aggregate(field, dbt_analyze._sketch_input(field, column_sql, category))) }}
  {%- endif -%}
  {{ return(dbt_analyze['_measure_' ~ field](column_sql, category)) }}
{% endmacro %}

{#- The items a run's top-k sketch of `column` tracks (of the columns not named apart: none), as
    _choose_scan decided them (else the var). -#}
{% macro _top_k_tracked(plan, column=none) %}
  {{ return(((plan.get('top_k_columns') or {}).get(column) or plan.get('top_k_tracked')
             or dbt_analyze._var('dbt_analyze_top_k_tracked')) | int) }}
{% endmacro %}

{#- The run's columns by the items their top-k sketches track: [{tracked, where: the condition on a
    row's column_name}], the columns not named apart last. -#}
{% macro _top_k_groups(plan) %}
  {%- if plan.get('top_k_groups') -%}{{ return(plan.top_k_groups) }}{%- endif -%}
  {%- set apart = {} -%}
  {%- for name, items in (plan.get('top_k_columns') or {}).items() -%}
    {%- do apart.setdefault(items, []).append(dbt_analyze._quote_literal(name)) -%}
  {%- endfor -%}
  {%- set groups = [] -%}
  {%- set named = [] -%}
  {%- for items, names in apart.items() | sort -%}
    {%- do groups.append({'tracked': items, 'where': 'column_name in (' ~ names | join(', ') ~ ')'}) -%}
    {%- do named.extend(names) -%}
  {%- endfor -%}
  {%- do groups.append({'tracked': dbt_analyze._top_k_tracked(plan),
                        'where': 'coalesce(column_name not in (' ~ named | join(', ') ~ '), true)' if named else 'true'}) -%}
  {{ return(groups) }}
{% endmacro %}

{#- The top-k groups of several runs' rows together (_write_runs_together): each run's groups, on
    its rows alone (written_run_id), those of one size joined into one group. -#}
{% macro _top_k_groups_of_runs(prepareds) %}
  {%- set by_size = {} -%}
  {%- for prepared in prepareds -%}
    {%- set run = 'written_run_id = ' ~ dbt_analyze._quote_literal(prepared.run.run_id) -%}
    {%- for group in dbt_analyze._top_k_groups(prepared.plan) -%}
      {%- do by_size.setdefault(group.tracked, []).append('(' ~ run ~ ' and ' ~ group.where ~ ')') -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set groups = [] -%}
  {%- for tracked, conditions in by_size.items() | sort -%}
    {%- do groups.append({'tracked': tracked, 'where': conditions | join(' or ')}) -%}
  {%- endfor -%}
  {{ return(groups) }}
{% endmacro %}

{#- SQL by a row's top-k group: `sqls`, one per group of _top_k_groups, in its order. -#}
{% macro _by_top_k_group_sql(groups, sqls) %}
  {%- if sqls | length == 1 -%}{{ return(sqls[0]) }}{%- endif -%}
  {%- set branches = [] -%}
  {%- for group in groups[:-1] -%}
    {%- do branches.append('when ' ~ group.where ~ ' then ' ~ sqls[loop.index0]) -%}
  {%- endfor -%}
  {{ return('case ' ~ branches | join(' ') ~ ' else ' ~ sqls[-1] ~ ' end') }}
{% endmacro %}
