{#-
  dbt run-operation analyze_stale                         re-analyze what changed, everywhere
  dbt run-operation analyze_stale --args '{check_only: true}'   only record and list what changed

  Across every table that has statistics (optionally one schema), finds the partitions whose
  files changed since collection (file listing, no scan), re-analyzes only those (and new ones),
  lists them, and records the outcome in table_staleness.
-#}
{% macro analyze_stale(check_only=false, schema=none) %}
  {{ return(adapter.dispatch('analyze_stale', 'dbt_analyze')(check_only, schema)) }}
{% endmacro %}

{% macro default__analyze_stale(check_only, schema) %}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- do dbt_analyze._await_statistics() -%}
  {%- do dbt_analyze._ensure_storage() -%}
  {%- set where = (' where table_schema = ' ~ dbt_analyze._quote_literal(schema)) if schema else '' -%}
  {%- set analyzed = run_query('select distinct table_schema, table_name from '
                               ~ dbt_analyze._storage_relation('table_statistics') ~ where ~ ' order by 1, 2') -%}
  {%- set check_id = dbt_analyze._new_run({}).run_id -%}
  {%- set existing = {} -%}
  {%- set report = [] -%}
  {%- set checks = [] -%}
  {#- The tables still there are planned one by one (describe, partitions); their files and current
      states are then read for all of them at once: two queries in all, not two per table. -#}
  {%- set present = [] -%}
  {%- for row in analyzed -%}
    {%- if row[0] not in existing -%}
      {%- do existing.update({row[0]: dbt_analyze._existing_tables(row[0])}) -%}
    {%- endif -%}
    {%- if row[1] | lower in existing[row[0]] -%}
      {%- do present.append(api.Relation.create(schema=row[0], identifier=row[1])) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ log('dbt_analyze: analyze_stale: checking ' ~ analyzed | length ~ ' table(s) ('
         ~ (analyzed | length - present | length) ~ ' dropped)', info=True) }}
  {%- set statuses = {} -%}
  {%- for status in dbt_analyze._table_statuses(present) -%}
    {%- do statuses.update({tojson([present[loop.index0].schema, present[loop.index0].identifier]): status}) -%}
  {%- endfor -%}
  {%- for row in analyzed -%}
    {%- set table_schema, table_name = row[0], row[1] -%}
    {%- set relation = api.Relation.create(schema=table_schema, identifier=table_name) -%}
    {%- set progress = 'dbt_analyze: analyze_stale: table ' ~ loop.index ~ ' of ' ~ analyzed | length ~ ': '
                       ~ table_schema ~ '.' ~ table_name -%}
    {%- set status = statuses.get(tojson([table_schema, table_name])) -%}
    {%- if status is none -%}
      {{ log(progress ~ ': dropped', info=True) }}
      {%- set status = {'': ['dropped', none]} -%}
    {%- else -%}
      {%- set changed = [] -%}
      {#- Partitions that are not fresh; an unpartitioned table has only its own entry (''). -#}
      {%- for spec, value in status.items() if value[0] != 'fresh' and (spec or status | length == 1) -%}
        {%- do changed.append((spec or 'the table') ~ ' (' ~ value[0] ~ ')') -%}
      {%- endfor -%}
      {{ log(progress ~ ': ' ~ (dbt_analyze._brief_list(changed) if changed else 'fresh'), info=True) }}
      {%- if changed and not check_only -%}
        {%- set summary = dbt_analyze._run_analyze({'relation': relation}) -%}
        {%- do report.append(table_schema ~ '.' ~ table_name ~ ': re-analyzed '
                             ~ (dbt_analyze._brief_list(summary.scanned) or 'the table')
                             ~ (', dropped ' ~ dbt_analyze._brief_list(summary.dropped) if summary.dropped else '')) -%}
        {%- set status = dbt_analyze._table_statuses([relation])[0] -%}
      {%- elif changed -%}
        {%- do report.append(table_schema ~ '.' ~ table_name ~ ': ' ~ dbt_analyze._brief_list(changed)) -%}
      {%- endif -%}
    {%- endif -%}
    {%- for spec, value in status.items() -%}
      {%- do checks.append('(' ~ [dbt_analyze._quote_literal(check_id), 'current_timestamp()',
                                  dbt_analyze._quote_literal(table_schema),
                                  dbt_analyze._quote_literal(table_name), dbt_analyze._quote_literal(spec),
                                  dbt_analyze._quote_literal(value[0]),
                                  'cast(' ~ dbt_analyze._quote_literal(value[1]) ~ ' as timestamp)'] | join(', ')
                                      ~ ')') -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if checks -%}
    {%- do run_query('insert into ' ~ dbt_analyze._storage_relation('staleness_checks') ~ ' values '
                     ~ checks | join(', ')) -%}
  {%- endif -%}
  {{ log('dbt_analyze: ' ~ (analyzed | length) ~ ' analyzed table(s); '
         ~ ((report | length) ~ ' changed:\n  ' ~ report | join('\n  ') if report else 'all fresh'), info=True) }}
  {{ return(report) }}
{% endmacro %}

{#- For each relation, {spec: [status, collected_at]} for the table ('') and each partition, from
    the file listing against the current states; the table is fresh when every partition is. Each
    relation is planned (describe, partitions); the files and the states of all of them are then
    read by two queries, which run at once. -#}
{% macro _table_statuses(relations) %}
  {%- set plans = [] -%}
  {%- for relation in relations -%}
    {%- set run = dbt_analyze._new_run({'relation': relation}) -%}
    {%- do plans.append(dbt_analyze._plan_target(dbt_analyze._build_request({'relation': relation}, run), run)) -%}
  {%- endfor -%}
  {{ return(dbt_analyze._statuses_of(plans, dbt_analyze._read_listings_and_states(plans, dbt_analyze._new_run({})))) }}
{% endmacro %}

{#- The statuses of _table_statuses, from planned tables (with their listings) and their states. -#}
{% macro _statuses_of(plans, all_states) %}
  {%- set statuses = [] -%}
  {%- for plan in plans -%}
    {%- set states = all_states[loop.index0] -%}
    {%- set status = {} -%}
    {%- for spec, value in dbt_analyze._partition_status(plan, states, []).items() -%}
      {%- do status.update({spec: [value, states.get(spec, {}).get('collected_at')]}) -%}
    {%- endfor -%}
    {%- if plan.table.partition_columns -%}
      {%- set all_fresh = status.values() | map(attribute=0) | reject('equalto', 'fresh') | list | length == 0 -%}
      {%- set times = status.values() | map(attribute=1) | reject('none') | list -%}
      {%- do status.update({'': ['fresh' if all_fresh else 'stale', times | min if times else none]}) -%}
    {%- endif -%}
    {%- do statuses.append(status) -%}
  {%- endfor -%}
  {{ return(statuses) }}
{% endmacro %}

{#- Items joined with ', ', the first 20 of more, and how many more (each one is in table_staleness). -#}
{% macro _brief_list(items) %}
  {{ return(items[:20] | join(', ') ~ (' and ' ~ (items | length - 20) ~ ' more' if items | length > 20 else '')) }}
{% endmacro %}
