{#- Writes one event of a run into analyze_run_events (see _event_sql). -#}
{% macro _write_event(run, event, table=none, metrics={}, from_sql=none) %}
  {%- do run_query(dbt_analyze._event_sql(run, event, table, metrics, from_sql)) -%}
{% endmacro %}

{#- Events of several runs in one INSERT: rows from _event_row. -#}
{% macro _write_events(rows) %}
  {%- do run_query('insert into ' ~ dbt_analyze._storage_relation('analyze_run_events') ~ ' values '
                   ~ rows | join(', ')) -%}
{% endmacro %}

{#- One event of a run as a VALUES row of analyze_run_events: (v1, v2, ...) (see _event_sql). -#}
{% macro _event_row(run, event, table=none, metrics={}, reads_after=none) %}
  {{ return('(' ~ dbt_analyze._event_values(run, event, table, metrics, reads_after) | join(', ') ~ ')') }}
{% endmacro %}

{#- The INSERT of one event of a run into analyze_run_events. metrics: {column: value}, numbers as
    SQL (so with from_sql, a query of one row, they may be its columns: m.<name>). -#}
{% macro _event_sql(run, event, table=none, metrics={}, from_sql=none, reads_after=none) %}
  {%- set values = dbt_analyze._event_values(run, event, table, metrics, reads_after) -%}
  {%- set events = dbt_analyze._storage_relation('analyze_run_events') -%}
  {%- if from_sql -%}
    {#- The run's own values as a VALUES row, not literals in a projection: Spark would write its
        numbers into the code it generates, compiled anew every run (see _run_numbers_sql). -#}
    {%- set names = [] -%}
    {%- set selected = [] -%}
    {%- set literals = [] -%}
    {%- for value in values -%}
      {%- if value.startswith('cast(m.') -%}
        {%- do selected.append(value) -%}
      {%- else -%}
        {%- do names.append('v' ~ loop.index) -%}
        {%- do selected.append('e.v' ~ loop.index) -%}
        {%- do literals.append(value) -%}
      {%- endif -%}
    {%- endfor -%}
    {{ return('insert into ' ~ events ~ ' select ' ~ selected | join(', ') ~ ' from (' ~ from_sql
              ~ ') m cross join (values (' ~ literals | join(', ') ~ ')) as e(' ~ names | join(', ') ~ ')') }}
  {%- endif -%}
  {{ return('insert into ' ~ events ~ ' values (' ~ values | join(', ') ~ ')') }}
{% endmacro %}

{#- An event's values as SQL, in the columns' order. The run's statement count goes into every
    event that ends a run, with the reads_after it (by default, after a `succeeded` event, the
    check for concurrent runs). -#}
{% macro _event_values(run, event, table, metrics, reads_after) %}
  {%- set values = [] -%}
  {%- set sent = dbt_analyze._statements_sent() if event != 'started' else none -%}
  {%- for column, type in dbt_analyze._storage_columns('analyze_run_events') -%}
    {%- if column == 'run_id' -%}{%- set value = dbt_analyze._quote_literal(run.run_id) -%}
    {%- elif column == 'invocation_id' -%}{%- set value = dbt_analyze._quote_literal(invocation_id) -%}
    {%- elif column == 'table_schema' -%}{%- set value = dbt_analyze._quote_literal(table.schema if table else none) -%}
    {%- elif column == 'table_name' -%}{%- set value = dbt_analyze._quote_literal(table.identifier if table
        else none) -%}
    {%- elif column == 'event' -%}{%- set value = dbt_analyze._quote_literal(event) -%}
    {%- elif column == 'event_at' -%}{%- set value = 'current_timestamp()' -%}
    {%- elif column == 'request' -%}{%- set value = dbt_analyze._quote_literal(run.request_text) -%}
    {%- elif column == 'statements' and sent is not none and run.get('statements_at_start') is not none -%}
      {%- set after = reads_after if reads_after is not none else (1 if event == 'succeeded' else 0) -%}
      {%- set value = 'cast(' ~ (sent - run.statements_at_start + 1 + after) ~ ' as bigint)' -%}
    {%- elif type == 'string' -%}{%- set value = dbt_analyze._quote_literal(metrics.get(column)) -%}
    {%- else -%}{%- set value = 'cast(' ~ (metrics.get(column) if metrics.get(column) is not none else 'null') ~ ' as '
                                ~ type ~ ')' -%}
    {%- endif -%}
    {%- do values.append(value) -%}
  {%- endfor -%}
  {{ return(values) }}
{% endmacro %}

{#- What a run itself stored, as aggregates of its statistics rows: rows, bytes and sketch_bytes
    of its partitions' states, and the columns whose most common values its top-k sketches cut
    (a JSON array: top_values_truncated of the table's column rows). run_id: of that run's rows
    alone, where the rows are several runs' (_write_runs_together). -#}
{% macro _own_numbers(run_id=none) %}
  {%- set own = ('run_id = ' ~ dbt_analyze._quote_literal(run_id) ~ ' and ') if run_id else '' -%}
  {%- set state = own ~ 'state_collected_at is not null' -%}
  {{ return([('rows', "coalesce(sum(if(column_name = '' and " ~ state ~ ', state_row_count, 0)), 0)'),
             ('bytes', "coalesce(sum(if(column_name = '' and " ~ state ~ ', state_size_bytes, 0)), 0)'),
             ('sketch_bytes', 'coalesce(sum(if(' ~ state ~ ', coalesce(length(state_ndv_sketch), 0)'
                              ~ ' + coalesce(length(state_quantile_sketch), 0)'
                              ~ ' + coalesce(length(state_top_values_sketch.sketch), 0), 0)), 0)'),
             ('truncated', 'to_json(collect_set(if(' ~ own ~ "partition_spec = '' and top_values_truncated, column_name, null)))")]) }}
{% endmacro %}

{#- What a run itself stored, read back as one row (_own_numbers). -#}
{% macro _own_states_sql(table, run_id) %}
  {%- set measures = [] -%}
  {%- for name, expression in dbt_analyze._own_numbers() -%}{%- do measures.append(expression ~ ' as ' ~ name) -%}{%- endfor -%}
  {{ return('select ' ~ measures | join(', ') ~ ' from ' ~ dbt_analyze._storage_relation('statistics_history')
            ~ ' where ' ~ dbt_analyze._table_where_sql(table) ~ ' and run_id = ' ~ dbt_analyze._quote_literal(run_id)) }}
{% endmacro %}

{#- The check for concurrent runs as one row: others (the runs of the table that have succeeded,
    comma-separated, of those that started at most a day before `run`: _succeeded_runs_sql), and
    rows, bytes and sketch_bytes of run's own `succeeded` event; with_own, also the columns whose
    most common values its rows cut (_own_numbers' truncated). -#}
{% macro _concurrent_runs_sql(table, run, with_own=false) %}
  {%- set own = dbt_analyze._quote_literal(run.run_id) -%}
  {%- set measures = [] -%}
  {%- for name, column in [('rows', 'rows_scanned'), ('bytes', 'bytes_scanned'),
                           ('sketch_bytes', 'sketch_bytes')] -%}
    {%- do measures.append('coalesce(max(if(run_id = ' ~ own ~ ', ' ~ column ~ ', null)), 0) as ' ~ name) -%}
  {%- endfor -%}
  {%- if with_own -%}
    {%- do measures.append('(select truncated from (' ~ dbt_analyze._own_states_sql(table, run.run_id) ~ ')) as truncated') -%}
  {%- endif -%}
  {{ return("select concat_ws(',', collect_list(run_id)) as others, " ~ measures | join(', ')
            ~ ' from ' ~ dbt_analyze._succeeded_runs_sql([table], run)) }}
{% endmacro %}

{#- The `succeeded` events of tables' runs that started at most a day before `run` (a run's id
    begins with its start): a relation. A run reads them before its scan (what its merge counts)
    and after its `succeeded` event (what succeeded meanwhile, and so is missing from its merge);
    of two runs at once, the later to check finds the other. A run of the table that started
    earlier and succeeded in between is one that ran for more than a day. -#}
{% macro _succeeded_runs_sql(tables, run) %}
  {%- set filters = [] -%}
  {%- for table in tables -%}{%- do filters.append('(' ~ dbt_analyze._table_where_sql(table) ~ ')') -%}{%- endfor -%}
  {{ return(dbt_analyze._storage_relation('analyze_run_events') ~ " where event = 'succeeded' and ("
            ~ filters | join(' or ') ~ ') and run_id >= '
            ~ dbt_analyze._quote_literal((run.started - modules.datetime.timedelta(days=1)).strftime('%Y%m%dT%H%M%S%f'))) }}
{% endmacro %}
