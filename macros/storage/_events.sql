{#- Writes one event of a run into analyze_run_events. metrics: {column: value}, numbers as SQL
    (so with from_sql, a query of one row, they may be its columns: m.<name>); the run's statement
    count goes into every event that ends a run. -#}
{% macro _write_event(run, event, table=none, metrics={}, from_sql=none) %}
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
    {#- This statement, and for a succeeded run the check for concurrent runs that follows it. -#}
    {%- elif column == 'statements' and sent is not none and run.get('statements_at_start') is not none -%}
      {%- set value = 'cast(' ~ (sent - run.statements_at_start + (2 if event == 'succeeded' else 1))
                      ~ ' as bigint)' -%}
    {%- elif type == 'string' -%}{%- set value = dbt_analyze._quote_literal(metrics.get(column)) -%}
    {%- else -%}{%- set value = 'cast(' ~ (metrics.get(column) if metrics.get(column) is not none else 'null') ~ ' as '
                                ~ type ~ ')' -%}
    {%- endif -%}
    {%- do values.append(value) -%}
  {%- endfor -%}
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
    {%- do run_query('insert into ' ~ events ~ ' select ' ~ selected | join(', ') ~ ' from (' ~ from_sql
                     ~ ') m cross join (values ('
                     ~ literals | join(', ') ~ ')) as e(' ~ names | join(', ') ~ ')') -%}
  {%- else -%}
    {%- do run_query('insert into ' ~ events ~ ' values (' ~ values | join(', ') ~ ')') -%}
  {%- endif -%}
{% endmacro %}

{#- What a run itself stored, as one row (rows, bytes, sketch_bytes): its partitions' states. -#}
{% macro _own_states_sql(table, run_id) %}
  {{ return("select coalesce(sum(if(column_name = '', state_row_count, 0)), 0) as rows, coalesce(sum(if(column_name = '', state_size_bytes, 0)), 0) as bytes,"
            ~ ' coalesce(sum(coalesce(length(state_ndv_sketch), 0) + coalesce(length(state_quantile_sketch), 0) + coalesce(length(state_top_values_sketch.sketch), 0)), 0) as sketch_bytes'
            ~ ' from ' ~ dbt_analyze._storage_relation('statistics_history') ~ ' where '
            ~ dbt_analyze._table_where_sql(table)
            ~ ' and run_id = ' ~ dbt_analyze._quote_literal(run_id) ~ ' and state_collected_at is not null') }}
{% endmacro %}

{#- The check for concurrent runs as one row: others (the runs of the table that succeeded since
    run_id's `started` event, comma-separated), and rows, bytes and sketch_bytes of own_run_id's
    `succeeded` event. -#}
{% macro _concurrent_runs_sql(table, run_id, own_run_id) %}
  {%- set run = dbt_analyze._quote_literal(run_id) -%}
  {%- set own = dbt_analyze._quote_literal(own_run_id) -%}
  {%- set measures = [] -%}
  {%- for name, column in [('rows', 'rows_scanned'), ('bytes', 'bytes_scanned'),
                           ('sketch_bytes', 'sketch_bytes')] -%}
    {%- do measures.append('coalesce(max(if(run_id = ' ~ own ~ " and event = 'succeeded', " ~ column
                           ~ ', null)), 0) as ' ~ name) -%}
  {%- endfor -%}
  {{ return("select concat_ws(',', collect_list(if(event = 'succeeded' and run_id <> " ~ run
            ~ ' and event_at >= mark, run_id, null))) as others, ' ~ measures | join(', ')
            ~ ' from (select *, max(if(run_id = ' ~ run ~ " and event = 'started', event_at, null)) over () as mark"
            ~ ' from ' ~ dbt_analyze._storage_relation('analyze_run_events') ~ ' where '
            ~ dbt_analyze._table_where_sql(table) ~ ')') }}
{% endmacro %}
