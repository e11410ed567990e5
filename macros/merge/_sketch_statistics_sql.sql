{#- Readers of the merged sketches: values of KLL rendered back in the column's type, constant ranks,
    and the merged top values (_merged_rows_sql and _statistics_rows_sql use them). -#}

{#- The SQL that renders a KLL value (a double) back as a value of the column's type. -#}
{% macro _from_quantile_sql(x, data_type) %}
  {%- set category = dbt_analyze._type_category(data_type) -%}
  {%- if category == 'date' -%}{{ return('cast(date_from_unix_date(cast(' ~ x ~ ' as int)) as string)') }}
  {#- A timestamp's stays an instant (microseconds, as text): the views render it (_rendered_sql). -#}
  {%- elif category == 'timestamp' -%}{{ return('cast(cast(' ~ x ~ ' as bigint) as string)') }}
  {%- elif category == 'timestamp_ntz' -%}
    {#- Its microseconds are UTC's (_quantile_input_sql): added to the epoch without a zone. -#}
    {{ return(dbt_analyze._utc_clock_sql('cast(' ~ x ~ ' as bigint)')) }}
  {%- elif category == 'integral' -%}{{ return('cast(cast(round(' ~ x ~ ') as bigint) as string)') }}
  {%- elif category == 'decimal' -%}
    {#- A double near the type's limit can round past it (99...9 of decimal(38,0) is 1e38), where
        the cast gives NULL with ANSI mode off (dbt-spark's sessions) and fails the merge with it on
        (a Thrift server's default): such a value is the type's limit. -#}
    {%- set digits = modules.re.findall('[0-9]+', data_type) or ['10', '0'] -%}
    {%- set scale = (digits[1] if digits | length > 1 else '0') | int -%}
    {%- set limit = '9' * (digits[0] | int - scale) ~ ('.' ~ '9' * scale if scale else '') ~ 'BD' -%}
    {{ return('cast(coalesce(try_cast(' ~ x ~ ' as ' ~ data_type ~ '), case when ' ~ x ~ ' > 0 then ' ~ limit ~ ' when '
              ~ x ~ ' < 0 then -' ~ limit ~ ' end) as string)') }}
  {%- elif category == 'fractional' -%}{{ return('cast(cast(' ~ x ~ ' as ' ~ data_type ~ ') as string)') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- A CASE over the data types present: one rendering per type. -#}
{% macro _render_by_type_sql(x, data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._from_quantile_sql(x, data_type) -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
                           ~ dbt_analyze._from_quantile_sql(x, data_type)) -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as string)') }}
{% endmacro %}

{#- A constant array<double> of ranks (the quantile functions want constant ranks), folded from
    one string: Spark plans an array(...) of the histogram grid's 2,541 literals slowly. -#}
{% macro _ranks_sql(ranks) %}
  {%- set literals = [] -%}
  {%- for rank in ranks -%}{%- do literals.append('%.17g' | format(rank | float)) -%}{%- endfor -%}
  {{ return('cast(split(' ~ dbt_analyze._quote_literal(literals | join(',')) ~ ", ',') as array<double>)") }}
{% endmacro %}

{#- A group's top-k sketches combined into one state, stored under the state's struct type of
    string items (a group's states are of one data type). A state's sketch is read back as the type
    its items were taken as: a collated string's under its collation (so that values equal under it
    merge into one), a number's, date's or timestamp's as the column's type. States taken before
    the sketch took those as they are hold text items: they are left out of the merge (as a basic
    state's missing sketch is), and their partitions are rescanned by the next run
    (_partition_status). A NULL sketch fails the combine (Spark 4.3): FILTER skips them. -#}
{% macro _combined_top_state_sql(data_types, tracked, merge='true') %}
  {#- Spark computes every aggregate of a CASE for every group: each combine takes the states of
      its own type alone, so a group's sketches are combined once, not once per type. -#}
  {%- set stored_type = dbt_analyze._top_values_sketch_type() -%}
  {%- set typed = [] -%}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- set native = dbt_analyze._type_category(data_type) in dbt_analyze._native_top_k_categories() -%}
    {%- if dbt_analyze._collation(data_type) or native -%}
      {%- do typed.append(dbt_analyze._quote_literal(data_type)) -%}
      {%- do branches.append('when ' ~ typed[-1] ~ ' then cast(approx_top_k_combine(cast(top_values_sketch as '
            ~ dbt_analyze._top_values_sketch_type(data_type) ~ '), ' ~ tracked
            ~ ') filter (where top_values_sketch is not null and data_type = ' ~ typed[-1] ~ ' and '
            ~ ('not ' ~ dbt_analyze._text_items_sql('top_values_sketch') ~ ' and ' if native else '')
            ~ '(' ~ merge ~ ')) as ' ~ stored_type ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set other = 'cast(approx_top_k_combine(top_values_sketch, ' ~ tracked ~ ') filter (where top_values_sketch is not null and '
                  ~ ('data_type not in (' ~ typed | join(', ') ~ ') and ' if typed else '') ~ '(' ~ merge ~ ')) as '
                  ~ stored_type ~ ')' -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' else ' ~ other ~ ' end' if branches else other) }}
{% endmacro %}

{#- The k most common values of one top-k state (`state`, the SQL of a stored state's struct),
    items as text: a timestamp's as its instant (_timestamp_state_sql), which the views render. -#}
{% macro _top_values_sql(data_types, state, k) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- set category = dbt_analyze._type_category(data_type) -%}
    {%- if dbt_analyze._collation(data_type) or category in dbt_analyze._native_top_k_categories() -%}
      {%- set estimate = 'approx_top_k_estimate(cast(' ~ state ~ ' as ' ~ dbt_analyze._top_values_sketch_type(data_type)
                         ~ '), ' ~ k ~ ')' -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
            ~ (("transform(" ~ estimate ~ ", v -> named_struct('item', " ~ dbt_analyze._timestamp_state_sql('v.item')
                ~ ", 'count', v.count))") if category == 'timestamp'
               else 'cast(' ~ estimate ~ ' as array<struct<item:string,count:bigint>>)')) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set other = 'approx_top_k_estimate(' ~ state ~ ', ' ~ k ~ ')' -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' else ' ~ other ~ ' end' if branches else other) }}
{% endmacro %}

{#- Whether a stored top-k sketch (a state's struct) holds its items as text. -#}
{% macro _text_items_sql(sketch) %}
  {{ return('lower(' ~ sketch ~ ".itemDataTypeDDL) like 'item string%'") }}
{% endmacro %}

{#- The error of a top-k sketch (`state`, its struct): the count any value may have lost to its
    purges, which the sketch reports as its maximum error. It is the offset of DataSketches'
    frequent items serialization (a little-endian long at byte 24; an empty sketch has none). -#}
{% macro _top_k_error_sql(state) %}
  {{ return("cast(conv(concat_ws('', reverse(regexp_extract_all(hex(substring(" ~ state
            ~ ".sketch, 25, 8)), '(..)', 1))), 16, 10) as bigint)") }}
{% endmacro %}
