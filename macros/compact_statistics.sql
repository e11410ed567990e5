{#-
  dbt run-operation compact_statistics
  dbt run-operation compact_statistics --args '{running_minutes: 120}'

  Rewrites the statistics tables into few files; every row stays. Each run appends a file or more
  to every table it writes, and each run reads all files of its table's bucket of
  statistics_history and analyze_run_events: after thousands of runs of a table, planning and
  merging slow down (docs/decisions/storage-bucketed-by-table.md).
  While it works, runs and the other operations refuse to start (a block on the tables); it does
  not start while a run started in the last `running_minutes` has not finished. A compaction cut
  off halfway is finished by the next one.
-#}
{% macro compact_statistics(running_minutes=60) %}
  {{ return(adapter.dispatch('compact_statistics', 'dbt_analyze')(running_minutes)) }}
{% endmacro %}

{% macro default__compact_statistics(running_minutes) %}
  {%- if not execute -%}{{ return({'tables': {}}) }}{%- endif -%}
  {%- do dbt_analyze._check_settings() -%}
  {%- set schema = dbt_analyze._stats_schema() -%}
  {%- set existing = dbt_analyze._existing_tables(schema) -%}
  {%- set tables = dbt_analyze._storage_tables() | reject('equalto', 'analyze_run_events') | list
                   + ['analyze_run_events'] -%}
  {%- if 'analyze_run_events' not in existing and 'analyze_run_events__rebuilt' not in existing -%}
    {{ log('dbt_analyze: no statistics tables in ' ~ schema ~ ': nothing to compact', info=True) }}
    {{ return({'tables': {}}) }}
  {%- endif -%}
  {%- for name in tables -%}{%- do dbt_analyze._finish_interrupted_rebuild(name, existing) -%}{%- endfor -%}
  {%- do dbt_analyze._ensure_storage(compacting=true) -%}
  {%- set events = dbt_analyze._storage_relation('analyze_run_events') -%}

  {#- The block: runs check it before their first write. A run that checked just before it was
      set writes its `started` event within its plan step: wait that long, then look for runs. -#}
  {%- do run_query('alter table ' ~ events ~ " set tblproperties ('dbt_analyze.compacting' = "
                   ~ dbt_analyze._quote_literal(modules.datetime.datetime.utcnow().isoformat(timespec='seconds')
                                                ~ ' UTC by invocation ' ~ invocation_id) ~ ')') -%}
  {%- do run_query("select java_method('java.lang.Thread', 'sleep', cast("
                   ~ dbt_analyze._var('dbt_analyze_compaction_wait_seconds') | int * 1000 ~ " as bigint))") -%}
  {%- set running = run_query('select run_id, table_schema, table_name, cast(started_at as string) from '
                              ~ dbt_analyze._storage_relation('analyze_runs')
                              ~ " where status = 'running' and started_at >= current_timestamp() - make_interval(0, 0, 0, 0, 0, "
                              ~ running_minutes | int ~ ') order by started_at') -%}
  {%- if running | length > 0 -%}
    {%- do run_query('alter table ' ~ events ~ " unset tblproperties if exists ('dbt_analyze.compacting')") -%}
    {%- set names = [] -%}
    {%- for row in running -%}
      {%- do names.append(row[0] ~ ' (' ~ row[1] ~ '.' ~ row[2] ~ ', started ' ~ row[3] ~ ')') -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: not compacting: run(s) started in the last ' ~ running_minutes
                                       ~ ' minutes have not finished: '
                                       ~ names | join(', ')
                                       ~ '. Run it when they end (a run that failed or was killed counts as running for '
                                       ~ running_minutes ~ ' minutes: pass running_minutes: 0 to go on)') }}
  {%- endif -%}

  {%- set report = {} -%}
  {%- for name in tables -%}
    {%- set files_before = dbt_analyze._count_files(name) -%}
    {%- set values = [] -%}
    {%- for column, type in dbt_analyze._storage_columns(name) -%}
      {%- do values.append(dbt_analyze._quote_identifier(column)) -%}
    {%- endfor -%}
    {%- set rows = dbt_analyze._rebuild_storage_table(name, values) -%}
    {%- do report.update({name: {'rows': rows, 'files_before': files_before,
                                 'files_after': dbt_analyze._count_files(name)}}) -%}
    {{ log('dbt_analyze: compacted ' ~ schema ~ '.' ~ name ~ ': ' ~ rows ~ ' rows, ' ~ files_before ~ ' file(s) -> '
           ~ report[name].files_after, info=True) }}
  {%- endfor -%}
  {#- The events table was rebuilt last: its new properties hold the version and no block. -#}
  {%- do run_query('alter table ' ~ events ~ " set tblproperties ('dbt_analyze.storage_version' = '"
                   ~ dbt_analyze._storage_version() ~ "')") -%}
  {{ return({'tables': report}) }}
{% endmacro %}

{% macro _count_files(name) %}
  {{ return(run_query('select count(distinct file) from (select input_file_name() as file from '
                      ~ dbt_analyze._storage_relation(name) ~ ')')[0][0] | int) }}
{% endmacro %}
