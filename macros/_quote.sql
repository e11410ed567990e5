{#- Quoting for everything put into SQL: identifiers in backquotes, literals in single quotes. -#}
{% macro _quote_identifier(name) %}
  {{ return('`' ~ (name | string | replace('`', '``')) ~ '`') }}
{% endmacro %}

{% macro _quote_literal(value) %}
  {%- if value is none -%}
    {{ return('null') }}
  {%- endif -%}
  {#- Spark string literals honour backslash escapes, so escape the backslash first. -#}
  {%- set escaped = (value | string) | replace('\\', '\\\\') | replace("'", "\\'") | replace('\n', '\\n') | replace('\r', '\\r') -%}
  {{ return("'" ~ escaped ~ "'") }}
{% endmacro %}

{% macro _quote_relation(schema, identifier) %}
  {{ return(dbt_analyze._quote_identifier(schema) ~ '.' ~ dbt_analyze._quote_identifier(identifier)) }}
{% endmacro %}
