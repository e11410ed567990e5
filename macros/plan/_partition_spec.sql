{#-
  Partition specs are Hive partition names, `k1=v1/k2=v2`, escaped the way Spark escapes partition
  directory names (ExternalCatalogUtils.escapePathName), so they equal what SHOW PARTITIONS prints
  and are unambiguous whatever the values hold. NULL and '' are __HIVE_DEFAULT_PARTITION__.
-#}
{% macro _escaped_chars() %}
  {#- The code points Spark escapes; '%' (37) must come first. -#}
  {{ return([37, 34, 35, 39, 42, 47, 58, 61, 63, 92, 123, 91, 93, 94, 127] + range(1, 32) | list) }}
{% endmacro %}

{#- [(character, its escape)] in the order escaping applies them (unescaping: the reverse). -#}
{% macro _escapes() %}
  {%- set chars = '%"#\'*/:=?\\{[]^\x7f\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f' -%}
  {%- set pairs = [] -%}
  {%- for code in dbt_analyze._escaped_chars() -%}
    {%- do pairs.append((chars[loop.index0], '%%%02X' | format(code))) -%}
  {%- endfor -%}
  {{ return(pairs) }}
{% endmacro %}

{% macro _escape_partition_value(value) %}
  {%- if value is none or (value | string) == '' -%}
    {{ return('__HIVE_DEFAULT_PARTITION__') }}
  {%- endif -%}
  {%- set out = namespace(text=value | string) -%}
  {%- for char, escaped in dbt_analyze._escapes() -%}
    {%- set out.text = out.text | replace(char, escaped) -%}
  {%- endfor -%}
  {{ return(out.text) }}
{% endmacro %}

{#- SQL for the spec of the current row's partition, from the partition columns. -#}
{% macro _partition_spec_sql(partition_columns) %}
  {%- if not partition_columns -%}
    {{ return("''") }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- for column in partition_columns -%}
    {%- set expr = namespace(sql='cast(' ~ dbt_analyze._quote_identifier(column) ~ ' as string)') -%}
    {%- for code in dbt_analyze._escaped_chars() -%}
      {%- set expr.sql = 'replace(' ~ expr.sql ~ ', char(' ~ code ~ "), '" ~ ('%%%02X' | format(code)) ~ "')" -%}
    {%- endfor -%}
    {%- do parts.append(dbt_analyze._quote_literal(dbt_analyze._escape_partition_value(column) ~ '=')
                        ~ ", coalesce(nullif(" ~ expr.sql ~ ", ''), '__HIVE_DEFAULT_PARTITION__')") -%}
  {%- endfor -%}
  {{ return('concat(' ~ parts | join(", '/', ") ~ ')') }}
{% endmacro %}

{#- {column: value} of a spec string (values still escaped; enough to match and to display). -#}
{% macro _split_partition_spec(spec) %}
  {%- set values = {} -%}
  {%- for part in spec.split('/') if '=' in part -%}
    {%- set kv = part.split('=', 1) -%}
    {%- do values.update({kv[0] | lower: kv[1]}) -%}
  {%- endfor -%}
  {{ return(values) }}
{% endmacro %}

{#- A spec's escaped value as the partition holds it: none for __HIVE_DEFAULT_PARTITION__. -#}
{% macro _unescape_partition_value(escaped_value) %}
  {%- if escaped_value == '__HIVE_DEFAULT_PARTITION__' -%}{{ return(none) }}{%- endif -%}
  {%- set value = namespace(text=escaped_value) -%}
  {%- for char, escaped in dbt_analyze._escapes() | reverse if '%' in value.text -%}
    {%- set value.text = value.text | replace(escaped, char) -%}
  {%- endfor -%}
  {{ return(value.text) }}
{% endmacro %}

{#- A spec as the clause inside PARTITION (...): its values unescaped and quoted, in the order of
    the table's partition columns (__HIVE_DEFAULT_PARTITION__ is null). -#}
{% macro _partition_clause_sql(table, spec) %}
  {%- set parts = [] -%}
  {%- for escaped_value in dbt_analyze._split_partition_spec(spec).values() -%}
    {%- set value = dbt_analyze._unescape_partition_value(escaped_value) -%}
    {%- do parts.append(dbt_analyze._quote_identifier(table.partition_columns[loop.index0]) ~ ' = '
                        ~ ('null' if value is none else dbt_analyze._quote_literal(value))) -%}
  {%- endfor -%}
  {{ return(parts | join(', ')) }}
{% endmacro %}

{#- Beside the spec predicate (which a metastore cannot evaluate: it prunes by the string of every
    partition), each partition column's values as literals of its own type, `day in (40)`, which
    Spark hands to the metastore to fetch those partitions only. Left out, to the spec predicate
    alone: a column whose name the metastore's filter cannot spell (it takes letters, digits and
    _), of a type without a literal here, or with null or a value the metastore's filter cannot
    spell (a double quote, a backslash, a control character) in a spec. None when none is left. -#}
{% macro _partition_values_filter_sql(table, specs) %}
  {%- set literal_forms = {'tinyint': '^-?[0-9]+$', 'smallint': '^-?[0-9]+$', 'int': '^-?[0-9]+$',
                           'bigint': '^-?[0-9]+$', 'date': '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
                           'string': '^[^"\\\\\\x00-\\x1f\\x7f]*$'} -%}
  {%- set types = {} -%}
  {%- for column in table.columns -%}{%- do types.update({column.name | lower: column.data_type}) -%}{%- endfor -%}
  {%- set columns = [] -%}
  {%- for column in table.partition_columns if types.get(column | lower) in literal_forms
                                              and modules.re.match('^[A-Za-z0-9_]+$', column) -%}
    {%- do columns.append({'index': loop.index0, 'name': column, 'type': types[column | lower], 'literals': {},
                           'usable': true}) -%}
  {%- endfor -%}
  {%- for spec in specs if columns -%}
    {%- set values = dbt_analyze._split_partition_spec(spec).values() | list -%}
    {%- for column in columns if column.usable -%}
      {%- set value = dbt_analyze._unescape_partition_value(values[column.index]) if values | length > column.index
                      else none -%}
      {%- if value is none or not modules.re.match(literal_forms[column.type], value) -%}
        {%- do column.update({'usable': false}) -%}
      {%- else -%}
        {%- do column.literals.update({value if column.type.endswith('int')
                                       else ('date' if column.type == 'date' else '') ~ dbt_analyze._quote_literal(value):
                                       true}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set conditions = [] -%}
  {%- for column in columns if column.usable and column.literals -%}
    {%- do conditions.append(dbt_analyze._quote_identifier(column.name) ~ ' in (' ~ column.literals.keys() | join(', ')
                             ~ ')') -%}
  {%- endfor -%}
  {{ return(conditions | join(' and ') or none) }}
{% endmacro %}

{#- {spec: true} of specs: membership by lookup, where a plan tests thousands of partitions. -#}
{% macro _spec_set(specs) %}
  {%- set found = {} -%}
  {%- for spec in specs -%}{%- do found.update({spec: true}) -%}{%- endfor -%}
  {{ return(found) }}
{% endmacro %}
