{#-
  The rewrite: one INSERT ... SELECT that scans the table once and writes one state row per
  scanned partition and column (plus the partition's row with column_name ''). The aggregate groups
  by the partition columns and prunes to the partitions to scan; the tiny aggregate is then
  unpivoted with inline(), so sketches never leave the server.

  plan:       from _plan_target (table, scan_columns, sketches)
  specs:      partition specs to scan ([''] for an unpartitioned table)
  listing:    {spec: {file_count, size_bytes, modified_at}} from the file listing
-#}
{% macro _scan_sql(plan, specs, listing, run_id) %}
  {%- set table = plan.table -%}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(table.partition_columns) -%}
  {%- set fields = dbt_analyze._state_fields() -%}

  {#- The aggregate: c<i>__<field> for every scanned column and state field that applies. -#}
  {%- set aggregates = [spec_sql ~ ' as __partition_spec', 'count(1) as __row_count'] -%}
  {%- set aliases = {} -%}
  {%- for column in plan.scan_columns -%}
    {%- set column_index = loop.index0 -%}
    {%- set category = dbt_analyze._type_category(column.data_type) -%}
    {%- for field, type in fields -%}
      {%- set expr = dbt_analyze._measure(field, dbt_analyze._quote_identifier(column.name), category) -%}
      {%- if expr and (plan.sketches == 'full' or field not in dbt_analyze._full_sketch_fields()) -%}
        {%- set alias = 'c' ~ column_index ~ '__' ~ field -%}
        {%- do aggregates.append(expr ~ ' as ' ~ alias) -%}
        {%- do aliases.update({alias: 'a.' ~ alias}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}

  {#- One struct per column (and one for the partition itself), all of the same type. -#}
  {%- set structs = [] -%}
  {%- for column in [none] + plan.scan_columns -%}
    {%- set column_index = loop.index0 - 1 -%}
    {%- set parts = ["'column_name', " ~ (dbt_analyze._quote_literal(column.name) if column else "''"),
                     "'data_type', " ~ (dbt_analyze._quote_literal(column.data_type) if column else 'cast(null as string)')] -%}
    {%- for field, type in fields -%}
      {%- set alias = aliases.get('c' ~ column_index ~ '__' ~ field) -%}
      {%- if alias and field == 'value_count' -%}
        {#- An empty partition has no aggregate row: its count is 0, not NULL. -#}
        {%- set value = 'coalesce(' ~ alias ~ ', 0)' -%}
      {%- else -%}
        {%- set value = alias or 'null' -%}
      {%- endif -%}
      {%- do parts.append(dbt_analyze._quote_literal(field) ~ ', cast(' ~ value ~ ' as ' ~ type ~ ')') -%}
    {%- endfor -%}
    {%- do structs.append('named_struct(' ~ parts | join(', ') ~ ')') -%}
  {%- endfor -%}

  {%- set listed = [] -%}
  {%- set quoted_specs = [] -%}
  {%- for spec in specs -%}
    {%- set files = listing.get(spec, {'file_count': 0, 'size_bytes': 0, 'modified_at': none}) -%}
    {%- do listed.append('(' ~ dbt_analyze._quote_literal(spec) ~ ', ' ~ files.file_count ~ ', ' ~ files.size_bytes
                         ~ ', ' ~ dbt_analyze._quote_literal(files.modified_at) ~ ')') -%}
    {%- do quoted_specs.append(dbt_analyze._quote_literal(spec)) -%}
  {%- endfor -%}
  {%- set partition_columns = [] -%}
  {%- for column in table.partition_columns -%}{%- do partition_columns.append(dbt_analyze._quote_identifier(column)) -%}{%- endfor -%}

  insert into {{ dbt_analyze._storage_relation('partition_states') }}
  select {{ dbt_analyze._quote_literal(run_id) }}, {{ dbt_analyze._quote_literal(table.schema) }},
         {{ dbt_analyze._quote_literal(table.identifier) }}, l.partition_spec, s.column_name, s.data_type,
         coalesce(a.__row_count, 0), l.file_count, l.size_bytes, l.modified_at,
         {%- for field, type in fields %} s.{{ field }},{% endfor %}
         {{ dbt_analyze._quote_literal(plan.sketches) }}, current_timestamp()
  from (values {{ listed | join(', ') }}) as l(partition_spec, file_count, size_bytes, modified_at)
  left join (
    select {{ aggregates | join(',\n           ') }}
    from {{ table.quoted }}
    {%- if not plan.scan_everything %}
    where {{ spec_sql }} in ({{ quoted_specs | join(', ') }})
    {%- endif %}
    {%- if partition_columns %}
    group by {{ partition_columns | join(', ') }}
    {%- endif %}
  ) a on a.__partition_spec = l.partition_spec
  lateral view inline(array(
    {{ structs | join(',\n    ') }}
  )) s
{% endmacro %}
