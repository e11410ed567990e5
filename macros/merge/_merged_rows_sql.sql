{#- The merge's aggregate: the states of each scanned partition, and of the table, merged into one group each. -#}

{#- One aggregate of the prepared states by `group_by` (each scanned partition's, and the table's):
    the table or partition row (column_name '') and each column's, with the first of each state
    field (a partition's group holds its one state) and, with sketch statistics, the merged
    sketches. The partition-level group of the states not scanned (partition_key '') is not
    written: its sketches are left unmerged (FILTER). Without group_by, each state is its own
    group: every aggregate is its argument, no aggregate is planned, and the rows are read straight
    off the scan's (states), with no level between that Spark's analyzer would resolve in passes
    of its own; its rows then carry the run's own columns too (`written`: _written_identity_sql). -#}
{% macro _merged_rows_sql(plan, group_by, spec_sql, is_table, with_sketch_statistics, written=none) %}
  {%- set data_types = plan.table.data_columns | map(attribute='data_type') | list -%}
  {%- set default_size = dbt_analyze._default_size_sql(data_types) -%}
  {%- set single = group_by is none -%}
  {%- set agg = {} -%}
  {%- for name in ['sum', 'min', 'max', 'first', 'bool_or'] -%}
    {%- do agg.update({name: '' if single else name}) -%}
  {%- endfor -%}
  {#- grouping(): a FILTER sees the states' own partition_key, not the one the table's set leaves out. -#}
  {%- set merge = "grouping(partition_key) = 1 or partition_key <> ''" if plan.table.partition_columns else 'true' -%}
  {%- set ndv_union = 'ndv_sketch' if single else 'hll_union_agg(ndv_sketch, true) filter (where ' ~ merge ~ ')' -%}
  {%- set ndv = 'hll_sketch_estimate(' ~ ndv_union ~ ')' -%}
  {#- The spread of the partitions' means about the table's, which pools their M2. -#}
  {%- set between_partitions = 'sum(value_count * pow(value_sum / nullif(value_count, 0) - table_mean, 2))' -%}
  {%- set values = agg.sum ~ '(value_count)' -%}
  {%- set sample_values = dbt_analyze._sample_values_sql() if single else 'sum(sample_values)' -%}
  {#- The values the distribution sketches saw (states before version 8: those of the whole-run
      sample, which fed them every sampled row). -#}
  {%- set sketch_values = ('coalesce(sketch_values, ' ~ dbt_analyze._sample_values_sql() ~ ')') if single
                          else 'sum(coalesce(sketch_values, sample_values)) filter (where ' ~ merge ~ ')' -%}
  {%- set singletons = agg.sum ~ '(coalesce(singletons, 0))' -%}
  {%- set firsts = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] -%}
    {%- do firsts.append(agg.first ~ '(' ~ column ~ ') as first_' ~ column) -%}
  {%- endfor -%}
  {%- set kll = 'quantile_sketch' if single else 'kll_merge_agg_double(quantile_sketch) filter (where ' ~ merge ~ ')' -%}
  {#- The sketch counts NULL as an item; a column without top values has no sketch to combine. -#}
  {%- set top_groups = dbt_analyze._top_k_groups(plan) -%}
  {%- set combined = [] -%}
  {%- for group in top_groups -%}
    {%- do combined.append(dbt_analyze._combined_top_state_sql(data_types, group.tracked,
                                                                merge ~ ') and (' ~ group.where if top_groups | length > 1 else merge)) -%}
  {%- endfor -%}
  {%- set top_state = 'top_values_sketch' if single
                      else 'if(count(top_values_sketch) > 0, ' ~ dbt_analyze._by_top_k_group_sql(top_groups, combined) ~ ', null)' -%}
  {#- A partitioned table's merged state, which its table rows carry: each field as if the table
      were one partition (M2 pooled about the table's mean), so that a run that adds partitions
      merges it with theirs alone (_stored_to_merge). No time: it is no partition's state. The
      fields these groups hold already are read from their columns (_merged_state_columns). -#}
  {%- set merged_state = {} -%}
  {%- if plan.table.partition_columns -%}
    {%- set held = dbt_analyze._merged_state_columns(with_sketch_statistics) -%}
    {%- set fields = {'files_modified_at': 'max(files_modified_at)', 'len_max': 'max(len_max)',
                      'value_m2': 'sum(value_m2) + ' ~ between_partitions, 'ndv_sketch': ndv_union,
                      'sketches': 'min(sketches)' if with_sketch_statistics else "'basic'",
                      'quantile_sketch': 'null', 'top_values_sketch': 'null',
                      'singletons': 'null', 'sample_rows': 'null', 'collected_at': 'null',
                      'sketch_rate': 'max(sketch_rate)'} -%}
    {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] if column not in held -%}
      {%- do merged_state.update({column: fields.get(column, 'sum(' ~ column ~ ')')}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set sql -%}
  select {{ spec_sql }} as partition_spec, column_name, data_type, {{ is_table }} as is_table,
         {{ '1' if single else 'sum(represents)' }} as partitions_analyzed,
         {{ agg.sum }}(row_count) as row_count, {{ agg.sum }}(size_bytes) as size_bytes, {{ agg.sum }}(file_count) as file_count,
         {{ agg.max }}(collected_at) as state_collected_at,
         coalesce({{ agg.bool_or }}(sample_rows is not null), false) as sampled,
         {{ "if(column_name = '', map(partition_spec, run_id), null)" if single
            else "map_from_entries(flatten(collect_list(runs) filter (where column_name = '')))" }} as partition_runs,
         {{ firsts | join(', ') }},
         {{ agg.sum }}(row_count) - {{ values }} as null_count,
         {#- Sampled states: Haas and Stokes' Duj1, D = n d / (n - f1 + f1 n / N), from the sample's
             non-null rows n, its distinct values d (HLL) and singletons f1, and the rows N it stands for. -#}
         case when {{ 'ndv_sketch is null' if single else 'count(ndv_sketch) = 0' }} then null
              when {{ agg.max }}(sample_rows) is null then least({{ ndv }}, {{ values }})
              else cast(round(least(greatest(
                {{ sample_values }} * {{ ndv }}
                / nullif({{ sample_values }} - {{ singletons }} + {{ singletons }} * {{ sample_values }} / nullif({{ values }}, 0), 0),
                {{ ndv }}), {{ values }})) as bigint) end as distinct_count,
         {#- One state's extremes are this run's own text of them: nothing to compare. -#}
         {{ 'min_value' if single else dbt_analyze._typed_extreme_sql(agg.min, 'min_value', data_types) }} as min_value,
         {{ 'max_value' if single else dbt_analyze._typed_extreme_sql(agg.max, 'max_value', data_types) }} as max_value,
         coalesce({{ agg.sum }}(len_sum) / nullif({{ values }}, 0), {{ default_size }}) as avg_len,
         coalesce({{ agg.max }}(len_max), {{ default_size }}) as max_len,
         {{ agg.sum }}(true_count) as true_count_merged, {{ agg.sum }}(false_count) as false_count_merged,
         {{ agg.sum }}(value_sum) / nullif({{ values }}, 0) as mean,
         {#- greatest() skips NULLs: keep NULL for columns without values. -#}
         if({{ agg.sum }}(value_m2) is null, null,
            sqrt(greatest({{ agg.sum }}(value_m2)
                          {%- if not single %} + if({{ is_table }} = 1, {{ between_partitions }}, 0){% endif %}, 0)
                 / nullif({{ values }} - 1, 0))) as stddev
         {%- if with_sketch_statistics %},
         {{ kll }} as kll,
         {{ values }} as n, least({{ ndv }}, {{ values }}) as ndv, {{ sketch_values }} as sketch_n,
         {{ top_state }} as top_state
         {%- endif %}
         {%- for field, expression in merged_state.items() %},
         {{ expression }} as merged_{{ field }}
         {%- endfor %}
         {%- if single %},
         {#- this_run's columns (_run_numbers_sql), which a single state's own listing row holds. -#}
         1 as partition_count, size_bytes as listed_size_bytes, file_count as listed_file_count, collected_at as now
         {%- if written %}, {{ written }}{% endif %}
         {%- endif %}
  from {{ 'states' if single else 'prepared' }}
  {%- if not single %}
  group by {{ group_by }}
  {%- endif %}
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- How many values a state's sample stands for: its values, scaled to the partition's rows. -#}
{% macro _sample_values_sql() %}
  {{ return('if(sample_rows is null, value_count, value_count * sample_rows / nullif(row_count, 0))') }}
{% endmacro %}

{#- The fields of the merged state that the merged groups hold already, and their columns there
    (_merged_rows_sql writes the others as merged_<field>). -#}
{% macro _merged_state_columns(with_sketch_statistics) %}
  {%- set columns = {'row_count': 'row_count', 'size_bytes': 'size_bytes', 'file_count': 'file_count',
                     'min_value': 'min_value', 'max_value': 'max_value',
                     'true_count': 'true_count_merged', 'false_count': 'false_count_merged'} -%}
  {%- if with_sketch_statistics -%}
    {%- do columns.update({'quantile_sketch': 'kll', 'top_values_sketch': 'top_state'}) -%}
  {%- endif -%}
  {{ return(columns) }}
{% endmacro %}

{#- SQL of a string-rendered value of data_type merged with agg (min or max; '' for one state), typed per type. -#}
{% macro _typed_extreme_sql(agg, field, data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- set category = dbt_analyze._type_category(data_type) -%}
    {%- if category == 'string' and not dbt_analyze._collation(data_type) -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then ' ~ agg ~ '(' ~ field ~ ')') -%}
    {%- elif category == 'timestamp' -%}
      {#- As an instant (the views render it in the reader's zone: _rendered_sql). -#}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
                             ~ dbt_analyze._timestamp_state_sql(agg ~ '(' ~ dbt_analyze._timestamp_from_state_sql(field)
                                                                ~ ')')) -%}
    {%- elif category in dbt_analyze._ordered_categories() -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then cast(' ~ agg ~ '(try_cast('
                             ~ field ~ ' as ' ~ data_type ~ ')) as string)') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as string)') }}
{% endmacro %}

{% macro _default_size_sql(data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._default_size(data_type) -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then '
                           ~ dbt_analyze._default_size(data_type)) -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as bigint)') }}
{% endmacro %}
