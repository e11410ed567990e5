{#- Bucket boundaries from the histogram of orders.amount (computed by orders' post-hook). -#}
{%- set edges = dbt_analyze.histogram_bounds(ref('orders'), 'amount') | unique | list -%}
select order_id, amount,
       case
         {%- for edge in edges[1:] %}
         when amount <= {{ edge }} then {{ loop.index0 }}
         {%- endfor %}
         else {{ edges | length }}
       end as amount_bucket,
       {{ edges | length }} as edge_count
from {{ ref('orders') }}
