{#- The current statistics of one table as text, like DESCRIBE EXTENDED: the table line, its
    partitions (up to 20), then one line per column (table level), after the table's last run. A run that just
    finished knows its id and the run that wrote the current snapshot (itself, a merge after a
    concurrent run, or the latest run when nothing changed): given the snapshot, it is read straight
    by run id, not through the current views, which first find every table's latest run; given
    the run's own numbers (run_metrics: analyze_runs' columns), they are not read back. Table,
    partition and column rows come from one read. A column whose quantiles, histogram and top
    values come from a sample of its values says what share of them its sketches saw (sketched).
    Column groups follow the columns, each on a line of its own. -#}
{% macro format_statistics(table_name, run_id=none, snapshot_run_id=none, run_metrics=none) %}
  {%- set parts = table_name.split('.') -%}
  {%- set table = {'schema': parts[0], 'identifier': parts[1]} -%}
  {%- set table_where = ' where ' ~ dbt_analyze._table_where_sql(table) -%}
  {%- set snapshot = 'select ' ~ dbt_analyze._quote_literal(parts[0]) ~ ' as table_schema, '
                     ~ dbt_analyze._quote_literal(parts[1]) ~ ' as table_name, '
                     ~ dbt_analyze._quote_literal(snapshot_run_id) ~ ' as run_id' if snapshot_run_id else none -%}
  {%- set reads = ['select partition_spec, column_name, row_count, size_bytes, file_count, partition_count, partitions_analyzed, '
                   ~ 'cast(collected_at as string), data_type, null_count, distinct_count, '
                   ~ dbt_analyze._rendered_sql('s.min_value') ~ ', ' ~ dbt_analyze._rendered_sql('s.max_value')
                   ~ ', round(avg_len, 2), max_len, true_count, false_count, round(mean, 4), round(stddev, 4),'
                   ~ ' sketch_values from ('
                   ~ dbt_analyze._current_rows_sql(snapshot, table) ~ ") s where column_name = '' or partition_spec = ''"
                   ~ ' order by column_name, partition_spec'] -%}
  {%- set metric_names = dbt_analyze._reported_run_columns() -%}
  {%- if run_metrics is none -%}
    {%- do reads.append('select ' ~ metric_names | join(', ') ~ ' from ('
          ~ dbt_analyze._analyze_runs_sql(table_where
                                          ~ (' and run_id = ' ~ dbt_analyze._quote_literal(run_id) if run_id else ''))
          ~ ') order by started_at desc limit 1') -%}
  {%- endif -%}
  {#- Two reads at once where the connection allows it, when the run's numbers are not given. -#}
  {%- set results = dbt_analyze._run_at_once(reads) -%}
  {%- set tables = [] -%}
  {%- set columns = [] -%}
  {%- set groups = [] -%}
  {%- set st = namespace(rows=none) -%}
  {%- for row in results[0] -%}
    {%- set values = row | list -%}
    {%- if values[1] == '' -%}
      {%- do tables.append([values[0]] + values[2:8]) -%}
      {%- if values[0] == '' -%}{%- set st.rows = values[2] -%}{%- endif -%}
    {%- elif values[8] == dbt_analyze._column_group_type() -%}
      {%- do groups.append('column group (' ~ fromjson(values[1]) | join(', ') ~ '): distinct ' ~ values[10]
                           ~ ', nulls ' ~ values[9]) -%}
    {%- else -%}
      {%- do columns.append([values[1]] + values[8:]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set st.sketched = false -%}
  {%- for column in columns -%}
    {%- set sketched = column.pop() -%}
    {%- set non_null = st.rows - column[2] if st.rows is not none and column[2] is not none else none -%}
    {%- if sketched is not none and non_null and sketched < non_null -%}
      {%- do column.append('%.1f%%' | format(100.0 * sketched / non_null)) -%}
      {%- set st.sketched = true -%}
    {%- else -%}
      {%- do column.append(none) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not st.sketched -%}{%- for column in columns -%}{%- do column.pop() -%}{%- endfor -%}{%- endif -%}
  {%- set runs = [run_metrics] if run_metrics is not none else [] -%}
  {%- for row in (results[1] if run_metrics is none else []) -%}
    {%- set metrics = {} -%}
    {%- for name in metric_names -%}{%- do metrics.update({name: row[loop.index0]}) -%}{%- endfor -%}
    {%- do runs.append(metrics) -%}
  {%- endfor -%}
  {%- set lines = ['', 'Statistics of ' ~ table_name] -%}
  {%- for run in runs -%}
    {%- set steps = [] -%}
    {%- for step in ['plan', 'scan', 'merge', 'publish'] if run.get(step ~ '_ms') is not none -%}
      {%- do steps.append(step ~ ' ' ~ run[step ~ '_ms'] ~ ' ms') -%}
    {%- endfor -%}
    {%- do lines.append('last run: ' ~ run.status ~ '; partitions scanned ' ~ (run.targets_scanned or 0)
                        ~ ', skipped ' ~ (run.partitions_skipped or 0)
                        ~ '; rows scanned ' ~ (run.rows_scanned or 0)
                        ~ ', bytes scanned ' ~ (run.bytes_scanned or 0) ~ ', sketches ' ~ (run.sketch_bytes or 0) ~ ' bytes'
                        ~ ('; ' ~ steps | join(', ') if steps else '')
                        ~ ('; ' ~ run.notes if run.notes else '')) -%}
  {%- endfor -%}
  {#- A table of many partitions (2,000 days) lists the 10 collected last, and says how many more. -#}
  {%- set partitions = tables | rejectattr(0, 'equalto', '') | list -%}
  {%- set shown = partitions if partitions | length <= 20
                  else (partitions | sort(attribute=6, reverse=true))[:10] | sort(attribute=0) -%}
  {%- for row in (tables | selectattr(0, 'equalto', '') | list) + shown -%}
    {%- set label = 'table' if row[0] == '' else '  partition ' ~ row[0] -%}
    {%- do lines.append(label ~ ': rows ' ~ (row[1] if row[1] is not none else 'unknown (not every partition analyzed)')
                        ~ ', size ' ~ row[2] ~ ' bytes, files ' ~ row[3]
                        ~ (', partitions ' ~ row[5] ~ ' of ' ~ row[4] ~ ' analyzed' if row[4] is not none else '')
                        ~ ', collected ' ~ row[6]) -%}
  {%- endfor -%}
  {%- if shown | length < partitions | length -%}
    {%- do lines.append('  ... and ' ~ (partitions | length - shown | length)
                        ~ ' more partition(s), the 10 above collected last: every one is in '
                        ~ dbt_analyze._storage_relation('table_statistics')) -%}
  {%- endif -%}
  {%- if columns | length -%}
    {%- set header = ['column', 'type', 'nulls', 'distinct', 'min', 'max', 'avg_len', 'max_len', 'true', 'false',
                      'mean', 'stddev'] + (['sketched'] if st.sketched else []) -%}
    {%- set cells = [header] -%}
    {%- for row in columns -%}
      {%- set line = [] -%}
      {%- for value in row -%}
        {%- set text = '' if value is none else value | string -%}
        {%- do line.append(text[:30] ~ ('…' if text | length > 30 else '')) -%}
      {%- endfor -%}
      {%- do cells.append(line) -%}
    {%- endfor -%}
    {%- set widths = [] -%}
    {%- for i in range(header | length) -%}
      {%- do widths.append(cells | map(attribute=i) | map('length') | max) -%}
    {%- endfor -%}
    {%- for line in cells -%}
      {%- set padded = [] -%}
      {%- for value in line -%}
        {%- do padded.append(value ~ ' ' * (widths[loop.index0] - value | length)) -%}
      {%- endfor -%}
      {%- do lines.append('  ' ~ padded | join('  ')) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for group in groups -%}{%- do lines.append(group) -%}{%- endfor -%}
  {{ return(lines | join('\n')) }}
{% endmacro %}
