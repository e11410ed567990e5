{#-
  Resolve a request's table and read what the catalog says of it, in one DESCRIBE:
  {schema, identifier, columns: [{name, data_type}], partition_columns: [names], location, type}.
  Unknown schemas and tables and views are refused here, before anything is written.
-#}
{% macro _resolve_table_name(request) %}
  {%- set schema = request.get('schema') -%}
  {%- set identifier = request.get('identifier') -%}
  {%- if request.get('relation') and execute -%}
    {#- A single name: a model, seed or snapshot of the project first, else a table in target.schema. -#}
    {%- for node in graph.nodes.values() if node.resource_type in ('model', 'seed', 'snapshot') and node.name == request['relation'] -%}
      {%- set schema = node.schema -%}
      {%- set identifier = node.alias or node.name -%}
    {%- endfor -%}
  {%- elif schema and execute -%}
    {#- schema.name may name a source as source_name.table_name. -#}
    {%- for source in graph.sources.values() if source.source_name == schema and source.name == identifier -%}
      {%- set schema = source.schema -%}
      {%- set identifier = source.identifier -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'schema': schema or target.schema, 'identifier': identifier}) }}
{% endmacro %}

{% macro _describe_table(request, run=none) %}
  {%- set name = dbt_analyze._resolve_table_name(request) -%}
  {%- set schemas = run_query('show schemas') -%}
  {%- set schema_names = schemas.columns[0].values() | map('lower') | list -%}
  {%- if name.schema | lower not in schema_names -%}
    {{ dbt_analyze._fail(run, "unknown schema '" ~ name.schema ~ "' (table " ~ name.schema ~ "." ~ name.identifier ~ ")") }}
  {%- endif -%}
  {%- set tables = run_query('show tables in ' ~ dbt_analyze._quote_identifier(name.schema)) -%}
  {%- set table_names = tables.columns[1].values() | map('lower') | list -%}
  {%- if name.identifier | lower not in table_names -%}
    {{ dbt_analyze._fail(run, "unknown table " ~ name.schema ~ "." ~ name.identifier) }}
  {%- endif -%}

  {%- set quoted = dbt_analyze._quote_relation(name.schema, name.identifier) -%}
  {%- set rows = run_query('describe table extended ' ~ quoted) -%}
  {%- set info = {'schema': name.schema, 'identifier': name.identifier, 'quoted': quoted,
                  'columns': [], 'partition_columns': [], 'location': none, 'type': none} -%}
  {%- set st = namespace(section='columns') -%}
  {%- for row in rows -%}
    {%- set key = (row[0] or '') | trim -%}
    {%- set value = (row[1] or '') | trim -%}
    {%- if key == '# Partition Information' -%}{%- set st.section = 'partitions' -%}
    {%- elif key.startswith('# Detailed Table Information') -%}{%- set st.section = 'details' -%}
    {%- elif key == '' or key.startswith('#') -%}
      {%- if st.section == 'columns' and key == '' -%}{%- set st.section = 'other' -%}{%- endif -%}
    {%- elif st.section == 'columns' -%}
      {%- do info.columns.append({'name': key, 'data_type': value | lower}) -%}
    {%- elif st.section == 'partitions' -%}
      {%- do info.partition_columns.append(key) -%}
    {%- elif st.section == 'details' and key | lower in ('location', 'type') -%}
      {%- do info.update({key | lower: value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if (info.type or '') | upper == 'VIEW' -%}
    {{ dbt_analyze._fail(run, "" ~ name.schema ~ "." ~ name.identifier ~ " is a view; views hold no data of their own to analyze (analyze the tables it reads)") }}
  {%- endif -%}
  {%- do info.update({'data_columns': info.columns | rejectattr('name', 'in', info.partition_columns) | list}) -%}
  {{ return(info) }}
{% endmacro %}
