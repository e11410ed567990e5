{#- A statistic kind's current view, or its rows of one snapshot (snapshot: _current_rows_sql of its run). -#}
{% macro _statistics_source(kind, snapshot=none) %}
  {{ return('(' ~ dbt_analyze._statistics_view_sql(kind, snapshot) ~ ')' if snapshot
            else dbt_analyze._storage_relation(kind)) }}
{% endmacro %}

{#- The current statistics of one table as text, like DESCRIBE EXTENDED: the table line, its
    partitions (up to 20), then one line per column (table level), after the table's last run. A run that just
    finished knows its id and the run that wrote the current snapshot (itself, or a merge after a
    concurrent run): given them, both are read straight by run id, not through the current views,
    which first find every table's latest run. -#}
{% macro format_statistics(table_name, run_id=none, snapshot_run_id=none) %}
  {%- set parts = table_name.split('.') -%}
  {%- set table_where = ' where ' ~ dbt_analyze._table_where_sql({'schema': parts[0], 'identifier': parts[1]}) -%}
  {%- set where = table_where -%}
  {%- set snapshot = dbt_analyze._current_rows_sql('select ' ~ dbt_analyze._quote_literal(parts[0])
                                                   ~ ' as table_schema, ' ~ dbt_analyze._quote_literal(parts[1])
                                                   ~ ' as table_name, ' ~ dbt_analyze._quote_literal(snapshot_run_id)
                                                   ~ ' as run_id', {'schema': parts[0], 'identifier': parts[1]})
                  if snapshot_run_id else none -%}
  {#- Three reads, at once where the connection allows it. -#}
  {%- set tables, columns, runs = dbt_analyze._run_at_once([
        'select partition_spec, row_count, size_bytes, file_count, partition_count, partitions_analyzed, cast(collected_at as string) from '
          ~ dbt_analyze._statistics_source('table_statistics', snapshot) ~ where ~ ' order by partition_spec',
        'select column_name, data_type, null_count, distinct_count, min_value, max_value, round(avg_len, 2), max_len, true_count, false_count, round(mean, 4), round(stddev, 4) from '
          ~ dbt_analyze._statistics_source('column_statistics', snapshot) ~ where
          ~ " and partition_spec = '' order by column_name",
        'select status, targets_scanned, partitions_skipped, rows_scanned, bytes_scanned, sketch_bytes, plan_ms, scan_ms, merge_ms, publish_ms, notes from ('
          ~ dbt_analyze._analyze_runs_sql(table_where
                                          ~ (' and run_id = ' ~ dbt_analyze._quote_literal(run_id) if run_id else ''))
          ~ ') order by started_at desc limit 1']) -%}
  {%- set lines = ['', 'Statistics of ' ~ table_name] -%}
  {%- for run in runs -%}
    {%- set steps = [] -%}
    {%- for step, ms in [('plan', run[6]), ('scan', run[7]), ('merge', run[8]), ('publish', run[9])]
        if ms is not none -%}
      {%- do steps.append(step ~ ' ' ~ ms ~ ' ms') -%}
    {%- endfor -%}
    {%- do lines.append('last run: ' ~ run[0] ~ '; partitions scanned ' ~ (run[1] or 0) ~ ', skipped ' ~ (run[2] or 0)
                        ~ '; rows scanned ' ~ (run[3] or 0)
                        ~ ', bytes scanned ' ~ (run[4] or 0) ~ ', sketches ' ~ (run[5] or 0) ~ ' bytes'
                        ~ ('; ' ~ steps | join(', ') if steps else '')
                        ~ ('; ' ~ run[10] if run[10] else '')) -%}
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
                      'mean', 'stddev'] -%}
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
  {{ return(lines | join('\n')) }}
{% endmacro %}
