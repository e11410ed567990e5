{#- The same checks as plain SQL over the data, one query each, as dbt-expectations writes them. -#}
{% test plain_row_count_between(model, min, max) %}
  select count(*) as n from {{ model }} having count(*) not between {{ min }} and {{ max }}
{% endtest %}

{% test plain_null_fraction_at_most(model, column_name, max) %}
  select avg(if({{ column_name }} is null, 1.0, 0.0)) as f from {{ model }} having avg(if({{ column_name }} is null, 1.0, 0.0)) > {{ max }}
{% endtest %}

{% test plain_distinct_count_between(model, column_name, min, max) %}
  select count(distinct {{ column_name }}) as n from {{ model }} having count(distinct {{ column_name }}) not between {{ min }} and {{ max }}
{% endtest %}

{% test plain_values_between(model, column_name, min, max) %}
  select {{ column_name }} from {{ model }} where {{ column_name }} < {{ min }} or {{ column_name }} > {{ max }}
{% endtest %}

{% test plain_mean_between(model, column_name, min, max) %}
  select avg({{ column_name }}) as m from {{ model }} having avg({{ column_name }}) not between {{ min }} and {{ max }}
{% endtest %}

{% test plain_unique(model, column_name) %}
  select {{ column_name }} from {{ model }} where {{ column_name }} is not null group by 1 having count(*) > 1
{% endtest %}
