{#-
  Resolve a request's table and read what the catalog says of it, in one DESCRIBE:
  {schema, identifier, columns: [{name, data_type}], partition_columns: [names], location, type}.
  Unknown schemas and tables and views are refused here, before anything is written.
-#}
{% macro _resolve_table_name(request) %}
  {#- A namespace: a plain set inside a for loop would not outlive the loop. -#}
  {%- set name = namespace(schema=request.get('schema'), identifier=request.get('identifier'), ephemeral=false,
                           rank=-1) -%}
  {%- if request.get('relation') and execute -%}
    {#- A single name: a model, seed or snapshot of the project first, else a table in target.schema.
        As ref() resolves a name: the root project's node before a package's, and of a versioned
        model its latest version. -#}
    {%- for node in graph.nodes.values() if node.resource_type in ('model', 'seed', 'snapshot')
        and node.name == request['relation'] -%}
      {%- set rank = (2 if node.package_name == project_name else 0)
                     + (1 if node.get('version') == node.get('latest_version') else 0) -%}
      {%- if rank > name.rank -%}
        {%- set name.rank = rank -%}
        {%- set name.schema = node.schema -%}
        {%- set name.identifier = node.alias or node.name -%}
        {%- set name.ephemeral = node.config.materialized == 'ephemeral' -%}
      {%- endif -%}
    {%- endfor -%}
  {%- elif name.schema and execute -%}
    {#- schema.name may name a source as source_name.table_name. -#}
    {%- for source in graph.sources.values() if source.source_name == name.schema and source.name == name.identifier -%}
      {%- set name.schema = source.schema -%}
      {%- set name.identifier = source.identifier -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return({'schema': name.schema or target.schema, 'identifier': name.identifier, 'ephemeral': name.ephemeral}) }}
{% endmacro %}

{#- The schema as the catalog spells it, or none when there is no such schema. -#}
{% macro _find_schema(name) %}
  {%- set found = namespace(schema=none) -%}
  {%- for value in run_query('show schemas').columns[0].values() if value | lower == name | lower -%}
    {%- set found.schema = value -%}
  {%- endfor -%}
  {{ return(found.schema) }}
{% endmacro %}

{% macro _describe_table(request, run=none) %}
  {%- set name = dbt_analyze._resolve_table_name(request) -%}
  {%- if name.ephemeral -%}
    {{ dbt_analyze._fail(run, "model '" ~ request.relation
                         ~ "' is ephemeral: it is inlined into the models that use it and has no table to analyze") }}
  {%- endif -%}
  {#- One DESCRIBE; only when it fails, what is missing is looked up, for the message. Names come
      back as the catalog spells them (Spark's is case-insensitive and keeps them in lower case),
      so that statistics of analytics.Orders and of analytics.orders are one table's. -#}
  {%- set quoted = dbt_analyze._quote_relation(name.schema, name.identifier) -%}
  {%- set described = adapter.dbt_analyze_query_rows('describe table extended ' ~ quoted)
                      if adapter.dbt_analyze_query_rows is defined else none -%}
  {%- if described is none or described.get('error') is not none -%}
    {%- set found = namespace(schema=dbt_analyze._find_schema(name.schema), identifier=none) -%}
    {%- if found.schema is none -%}
      {{ dbt_analyze._fail(run, "unknown schema '" ~ name.schema ~ "' (table " ~ name.schema ~ "." ~ name.identifier
                           ~ ")") }}
    {%- endif -%}
    {%- set tables = run_query('show tables in ' ~ dbt_analyze._quote_identifier(found.schema)) -%}
    {%- for value in tables.columns[1].values() if value | lower == name.identifier | lower -%}
      {%- set found.identifier = value -%}
    {%- endfor -%}
    {%- if found.identifier is none -%}
      {{ dbt_analyze._fail(run, "unknown table " ~ name.schema ~ "." ~ name.identifier) }}
    {%- endif -%}
    {%- set quoted = dbt_analyze._quote_relation(found.schema, found.identifier) -%}
    {%- set described = {'rows': run_query('describe table extended ' ~ quoted).rows} -%}
  {%- endif -%}
  {%- set rows = described.rows -%}
  {%- set found = namespace(schema=name.schema, identifier=name.identifier) -%}
  {%- set info = {'schema': found.schema, 'identifier': found.identifier, 'quoted': quoted,
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
    {%- elif st.section == 'details' and key in ('Database', 'Table') -%}
      {%- do info.update({'schema' if key == 'Database' else 'identifier': value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do info.update({'quoted': dbt_analyze._quote_relation(info.schema, info.identifier)}) -%}
  {%- set found.schema = info.schema -%}
  {%- set found.identifier = info.identifier -%}
  {%- if (info.type or '') | upper == 'VIEW' -%}
    {{ dbt_analyze._fail(run, "" ~ found.schema ~ "." ~ found.identifier
                         ~ " is a view; views hold no data of their own to analyze (analyze the tables it reads)") }}
  {%- endif -%}
  {%- do info.update({'data_columns': info.columns | rejectattr('name', 'in', info.partition_columns) | list}) -%}
  {{ return(info) }}
{% endmacro %}
