{#- Salting the most common join key: the hottest customer's rows are spread over 4 salts. -#}
{%- set hot = dbt_analyze.top_values(ref('orders'), 'customer', limit=1) -%}
{%- set amount = dbt_analyze.get_column_stats(ref('orders'), 'amount') -%}
select order_id, customer,
       {%- set quoted = [] -%}
       {%- for item in hot -%}{%- do quoted.append(dbt_analyze._quote_literal(item.value)) -%}{%- endfor %}
       case when customer in ({{ quoted | join(', ') or 'null' }})
            then concat(customer, '#', cast(order_id % 4 as string)) else customer end as join_key,
       {{ amount.get('max_value', 'null') }} as max_amount_at_compile_time,
       {{ amount.mean + 2.5 * amount.stddev if amount else 'null' }} as amount_outlier_fence
from {{ ref('orders') }}
