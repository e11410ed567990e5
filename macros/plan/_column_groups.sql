{#-
  Column groups: sets of two or more columns of a table whose distinct combinations a run counts
  (PostgreSQL's CREATE STATISTICS ndistinct, Oracle's column groups), for the GROUP BYs and joins
  that run over them together. A group is kept like a column: a state row per partition in
  statistics_history, whose column_name is the group's key (its column names in the table's
  order, as a JSON array) and whose data_type is 'column group'; its value_count counts the rows
  where every column of the group has a value, and its HLL sketch their combinations (an xxhash64
  of the tuple; 64-bit collisions are negligible next to the sketch's error). So merge, incremental
  runs, export and compaction carry groups as they carry columns; the views of columns leave them
  out and column_group_statistics shows them.
-#}

{% macro _column_group_type() %}{{ return('column group') }}{% endmacro %}

{#- The key of a group of column names, in the table's order: '["a","b"]'. -#}
{% macro _column_group_key(names) %}
  {%- set quoted = [] -%}
  {%- for name in names -%}{%- do quoted.append(tojson(name)) -%}{%- endfor -%}
  {{ return('[' ~ quoted | join(',') ~ ']') }}
{% endmacro %}

{#- A group as the plan keeps it: {name: its key, data_type: 'column group', members: its columns}. -#}
{% macro _column_group(members) %}
  {{ return({'name': dbt_analyze._column_group_key(members | map(attribute='name') | list),
             'data_type': dbt_analyze._column_group_type(), 'members': members}) }}
{% endmacro %}

{#- The requested groups (lists of names) checked against the table's columns (its partition
    columns too: each row carries its partition's values), each in the table's column order, once. -#}
{% macro _plan_column_groups(table, groups, run=none) %}
  {%- set by_name = {} -%}
  {%- for column in table.columns -%}{%- do by_name.update({column.name | lower: column}) -%}{%- endfor -%}
  {%- set planned = [] -%}
  {%- for names in groups -%}
    {%- set members = [] -%}
    {%- for name in names -%}
      {%- if (name | lower) not in by_name -%}
        {{ dbt_analyze._fail(run, "unknown column '" ~ name ~ "' in column group " ~ names | list ~ " of "
                             ~ table.schema ~ "." ~ table.identifier ~ " (columns: "
                             ~ table.columns | map(attribute='name') | join(', ') ~ ")") }}
      {%- endif -%}
    {%- endfor -%}
    {%- for column in table.columns if column.name | lower in names | map('lower') | list -%}
      {%- do members.append(column) -%}
    {%- endfor -%}
    {%- set group = dbt_analyze._column_group(members) -%}
    {%- if group.name not in planned | map(attribute='name') | list -%}{%- do planned.append(group) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(planned) }}
{% endmacro %}

{#- The groups a run scans: the requested ones and every group the table's states hold whose
    columns are still there with the types they had (a rescanned partition's state replaces the
    old one whole, so a group, like a column, is kept by every later run). `stated`: {column_name:
    data_type} of the stored states. A partition whose state saw a member column with another type
    is stale by that column, and scanned again with the group. -#}
{% macro _column_groups_to_scan(plan, stated) %}
  {%- set groups = plan.column_groups | list -%}
  {%- set by_name = {} -%}
  {%- for column in plan.table.columns -%}{%- do by_name.update({column.name: column}) -%}{%- endfor -%}
  {%- for key, data_type in stated | dictsort if data_type == dbt_analyze._column_group_type()
      and key not in groups | map(attribute='name') | list -%}
    {%- set names = fromjson(key) -%}
    {%- if names | reject('in', by_name) | list | length == 0 -%}
      {%- set members = [] -%}
      {%- for name in names -%}{%- do members.append(by_name[name]) -%}{%- endfor -%}
      {%- do groups.append(dbt_analyze._column_group(members)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(groups) }}
{% endmacro %}

{#- What the scan reads of a column per row: the column itself, or, for a column group, the hash of
    its columns' values where all have one. -#}
{% macro _scanned_value_sql(column) %}
  {{ return(dbt_analyze._column_group_value_sql(column) if column.data_type == dbt_analyze._column_group_type()
            else dbt_analyze._quote_identifier(column.name)) }}
{% endmacro %}

{% macro _column_group_value_sql(group) %}
  {%- set quoted = [] -%}
  {%- set present = [] -%}
  {%- for column in group.members -%}
    {%- set q = dbt_analyze._quote_identifier(column.name) -%}
    {%- do quoted.append(q) -%}
    {%- do present.append(q ~ ' is not null') -%}
  {%- endfor -%}
  {{ return('if(' ~ present | join(' and ') ~ ', xxhash64(' ~ quoted | join(', ') ~ '), null)') }}
{% endmacro %}

{#- Whether a document's row is a column group's whose columns the table has. -#}
{% macro _column_group_applies(row, table) %}
  {%- if row.get('data_type') != dbt_analyze._column_group_type() -%}{{ return(false) }}{%- endif -%}
  {{ return(fromjson(row.column_name) | reject('in', table.columns | map(attribute='name') | list) | list | length == 0) }}
{% endmacro %}

{#- column_groups: auto. The groups of the table that the models reading it use together (GROUP BY,
    DISTINCT, PARTITION BY, join keys: dbt_analyze.column_groups), at most
    dbt_analyze_column_groups_max, the most used first; logged with the models they came from. A
    model reads as compiled when the graph has its compiled code (an earlier compile, `dbt
    compile`), else as its raw code with its ref() and source() resolved: in a `dbt build`, the
    models below this one are not compiled yet when its post-hook runs. Lists of names, [] when
    the table is not a node of the project or no model uses a group. -#}
{% macro _auto_column_groups(table, run=none) %}
  {%- set limit = dbt_analyze._var('dbt_analyze_column_groups_max') | int -%}
  {%- set name = table.schema ~ '.' ~ table.identifier -%}
  {%- if not limit or graph is not defined -%}{{ return([]) }}{%- endif -%}
  {%- set relations = {} -%}
  {%- set node_ids = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type in ('model', 'seed', 'snapshot') -%}
    {%- set relation = (node.schema ~ '.' ~ (node.alias or node.name)) | lower -%}
    {%- do relations.update({node.name: node.schema ~ '.' ~ (node.alias or node.name)}) -%}
    {%- if relation == name | lower -%}{%- do node_ids.append(node.unique_id) -%}{%- endif -%}
  {%- endfor -%}
  {%- set sources = [] -%}
  {%- for source in graph.sources.values() -%}
    {%- do sources.append([source.source_name, source.name, source.schema ~ '.' ~ source.identifier]) -%}
    {%- if (source.schema ~ '.' ~ source.identifier) | lower == name | lower -%}{%- do node_ids.append(source.unique_id) -%}{%- endif -%}
  {%- endfor -%}
  {%- set models = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
      and (node.depends_on.nodes | select('in', node_ids) | list) -%}
    {%- do models.append({'name': node.name, 'sql': node.get('compiled_code') if node.get('compiled') else none,
                          'raw': node.raw_code}) -%}
  {%- endfor -%}
  {%- set chosen = adapter.dbt_analyze_choose_column_groups(tojson({'schema': table.schema, 'table': table.identifier,
                       'columns': table.columns | map(attribute='name') | list, 'models': models, 'limit': limit,
                       'refs': relations, 'sources': sources}))
                   if models else [] -%}
  {%- if chosen -%}
    {%- set said = [] -%}
    {%- for group in chosen -%}
      {%- do said.append('(' ~ group.columns | join(', ') ~ ') from ' ~ group.models | join(', ')) -%}
    {%- endfor -%}
    {{ log('dbt_analyze: ' ~ name ~ ': column groups from the models that read it: ' ~ said | join('; '), info=True) }}
  {%- elif node_ids -%}
    {{ log('dbt_analyze: ' ~ name ~ ': column_groups auto: no model that reads it groups, deduplicates or joins on two'
           ~ ' or more of its columns together; no column group collected', info=True) }}
  {%- endif -%}
  {{ return(chosen | map(attribute='columns') | list) }}
{% endmacro %}
