{#- What a table's runs learned about its columns' top-k sketches: {column: items its sketch
    tracks from then on}, for the columns whose most common values a sketch cut (a larger sketch
    would list more). Kept in statistics_history's table properties, one per table (its name's
    md5: a property's key is short), read with a run's first statements (_run_analyze) without a
    scan, and written only by a run that grows a column. A write lost to another at the same time
    is learned again by the table's next run. -#}
{% macro _top_k_hints_key(table) %}
  {{ return('dbt_analyze.top_k_tracked.' ~ local_md5((table.schema ~ '.' ~ table.identifier) | lower)) }}
{% endmacro %}

{% macro _top_k_hints_sql() %}
  {{ return('show tblproperties ' ~ dbt_analyze._storage_relation('statistics_history')) }}
{% endmacro %}

{#- A table's hints out of the properties' rows (`rows`: [key, value]), each at most the var
    dbt_analyze_top_k_tracked_max. -#}
{% macro _top_k_hints(rows, table) %}
  {%- set key = dbt_analyze._top_k_hints_key(table) -%}
  {%- set most = dbt_analyze._var('dbt_analyze_top_k_tracked_max') | int -%}
  {%- set hints = {} -%}
  {%- for row in rows or [] if row[0] == key -%}
    {%- for name, items in fromjson(row[1]).items() -%}{%- do hints.update({name: [items | int, most] | min}) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(hints) }}
{% endmacro %}

{#- After a run that did not ask for its own size: the columns whose most common values its
    sketches cut (`truncated`, a JSON array of names: _own_numbers) and that track fewer than
    dbt_analyze_top_k_tracked_max items track that many from the table's next run. Stores the
    grown hints (as many as a property holds) and logs them; a failed write only logs. -#}
{% macro _grow_top_k(plan, request, hints, truncated) %}
  {%- set most = dbt_analyze._var('dbt_analyze_top_k_tracked_max') | int -%}
  {%- set grown = [] -%}
  {%- for name in fromjson(truncated or '[]') if not request.top_k_tracked
                                                and dbt_analyze._top_k_tracked(plan, name) < most -%}
    {%- do grown.append(name) -%}
  {%- endfor -%}
  {%- if not grown -%}{{ return(none) }}{%- endif -%}
  {%- set kept = dict(hints) -%}
  {%- for name in grown -%}
    {%- set trial = dict(kept) -%}
    {%- do trial.update({name: most}) -%}
    {%- if tojson(trial) | length <= 4000 -%}{%- do kept.update({name: most}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set table = plan.table -%}
  {%- set found = adapter.dbt_analyze_query_rows('alter table ' ~ dbt_analyze._storage_relation('statistics_history')
                    ~ ' set tblproperties (' ~ dbt_analyze._quote_literal(dbt_analyze._top_k_hints_key(table)) ~ ' = '
                    ~ dbt_analyze._quote_literal(tojson(kept)) ~ ')') -%}
  {{ log('dbt_analyze: ' ~ table.schema ~ '.' ~ table.identifier ~ ': the most common values of ' ~ grown | join(', ')
         ~ ' ran out of their top-k sketches; ' ~ ('they track ' ~ most ~ ' items from the next run'
                                                   if found.get('error') is none
                                                   else 'could not keep a larger size: ' ~ found.error), info=True) }}
  {{ return(kept) }}
{% endmacro %}
