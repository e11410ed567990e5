{#- Quoting for everything put into SQL: identifiers in backquotes, literals in single quotes. -#}
{% macro _quote_identifier(name) %}
  {{ return('`' ~ (name | string | replace('`', '``')) ~ '`') }}
{% endmacro %}

{% macro _quote_literal(value) %}
  {{ return(dbt_analyze._quote_literals([value])[0]) }}
{% endmacro %}

{#- Literals of many values, in one macro call (a plan quotes each of thousands of partitions).
    Spark string literals honour backslash escapes, so the backslash is escaped first. -#}
{% macro _quote_literals(values) %}
  {%- set quoted = [] -%}
  {%- for value in values -%}
    {%- do quoted.append('null' if value is none
                         else "'" ~ ((value | string) | replace('\\', '\\\\') | replace("'", "\\'")
                                     | replace('\n', '\\n') | replace('\r', '\\r')) ~ "'") -%}
  {%- endfor -%}
  {{ return(quoted) }}
{% endmacro %}

{% macro _quote_relation(schema, identifier) %}
  {{ return(dbt_analyze._quote_identifier(schema) ~ '.' ~ dbt_analyze._quote_identifier(identifier)) }}
{% endmacro %}

{#- A given value as a value of a column's type, as SQL: the type's rendering of it (cast(x as
    string), as statistics keep values; with rendered=false the value itself), or NULL when it is
    not a value of the type. -#}
{% macro _as_type_sql(value, data_type, rendered=true) %}
  {%- set typed = 'try_cast(' ~ dbt_analyze._quote_literal(value | string) ~ ' as ' ~ data_type ~ ')' -%}
  {{ return('cast(' ~ typed ~ ' as string)' if rendered else typed) }}
{% endmacro %}
