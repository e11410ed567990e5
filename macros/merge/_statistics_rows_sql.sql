{#- The rows a run writes, derived from the merged groups: statistics, and the quantiles, histogram bins and top values read off the merged sketches. -#}

{#- The rows to write, from the merged groups (in statistics_history's columns; the run and its
    table from the groups' written_* columns, _written_identity_sql): a table row ('')
    also when there is no state at all (an empty or never scanned table), from this_run alone; a
    table's column row only when every partition has a state of it. -#}
{% macro _statistics_rows_sql(plan, with_sketch_statistics, merged_rows) %}
  {%- set partitioned = plan.table.partition_columns | length > 0 -%}
  {%- set run = 'm.written_run_id' -%}
  {%- set carries_state = 'm.is_table = 0' if partitioned else 'true' -%}
  {%- set column_row = "coalesce(m.column_name, '') <> ''" -%}
  {%- set table_row = "coalesce(m.column_name, '') = '' and coalesce(m.is_table, 1) = 1" -%}
  {%- set values = {
        'run_id': run, 'table_schema': 'm.written_table_schema', 'table_name': 'm.written_table_name',
        'partition_spec': "coalesce(m.partition_spec, '')", 'column_name': "coalesce(m.column_name, '')",
        'data_type': 'm.data_type',
        'row_count': "case when " ~ column_row
            ~ " then null when coalesce(m.is_table, 1) = 1 then if(coalesce(m.partitions_analyzed, 0) = m.partition_count, coalesce(m.row_count, 0), null) else m.row_count end",
        'size_bytes': "case when " ~ column_row ~ " then null when " ~ table_row
            ~ " then m.listed_size_bytes else m.size_bytes end",
        'file_count': "case when " ~ column_row ~ " then null when " ~ table_row
            ~ " then m.listed_file_count else m.file_count end",
        'partition_count': 'if(' ~ table_row ~ ', m.partition_count, null)' if partitioned else 'cast(null as bigint)',
        'partitions_analyzed': 'coalesce(m.partitions_analyzed, 0)',
        'sampled': 'coalesce(m.sampled, false)',
        'collected_at': 'if(coalesce(m.is_table, 1) = 1, m.now, m.state_collected_at)',
        'partition_runs': ('if(' ~ table_row ~ ', coalesce(m.partition_runs, map()), null)') if partitioned
            else ('if(' ~ table_row ~ ", map('', " ~ run ~ '), null)'),
        'true_count': 'm.true_count_merged', 'false_count': 'm.false_count_merged',
        'column_types': 'if(' ~ table_row ~ ', m.written_column_types, null)',
      } -%}
  {%- for column in ['null_count', 'distinct_count', 'min_value', 'max_value', 'avg_len', 'max_len', 'mean',
                     'stddev'] -%}
    {%- do values.update({column: 'm.' ~ column}) -%}
  {%- endfor -%}
  {%- set arrays = dbt_analyze._sketch_arrays_sql(plan, merged_rows) if with_sketch_statistics else none -%}
  {%- if arrays -%}
    {%- do values.update(arrays.columns) -%}
  {%- endif -%}
  {#- A partitioned table's rows carry its merged state where every partition has an unsampled one. -#}
  {%- set merged_ok = 'not coalesce(m.sampled, true) and m.partitions_analyzed = m.partition_count' -%}
  {%- set held = dbt_analyze._merged_state_columns(with_sketch_statistics) -%}
  {%- for column, type in dbt_analyze._storage_columns('partition_states')[6:] -%}
    {%- do values.update({'state_' ~ column: 'if(' ~ carries_state ~ ', m.first_' ~ column ~ ', '
                          ~ ('if(' ~ merged_ok ~ ', m.' ~ held.get(column, 'merged_' ~ column) ~ ', null)' if partitioned
                             else 'null') ~ ')'}) -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for column, type in dbt_analyze._storage_columns('statistics_history') -%}
    {%- do columns.append('cast(' ~ values.get(column, 'null') ~ ' as ' ~ type ~ ') as ' ~ column) -%}
  {%- endfor -%}
  {%- set sql -%}
  select {{ columns | join(',
         ') }}
  from {{ arrays.relation if arrays else merged_rows }} m
  where (coalesce(m.is_table, 1) = 1 or m.partition_spec <> '')
    and (m.column_name is null or m.column_name = '' or m.is_table = 0 or m.partitions_analyzed = m.partition_count)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The merged rows' quantiles, histogram bins and top values as arrays: `relation`, the merged
    rows with what those are derived from, and `columns`, the SQL of each array over it. Histograms
    are equi-height bins, Spark CBO style: num_bins bins whose bounds are the KLL quantiles at
    i/num_bins, each holding rows/num_bins rows. A bin's distinct count is estimated without a scan
    from the column's NDV (HLL) and a 10x finer quantile grid. Other than integers and dates: the
    NDV shared out in proportion to the distinct grid points in the bin (exact while the column has
    fewer distinct values than the grid). Integers and dates: each bin has its distinct grid points;
    the NDV beyond them goes first to bins with 3x more rows than the W values of (lower, upper]
    (full: all W), then to the others in proportion to how many more values they would hold if
    their rows fell at random on their W values (W (1 - exp(-rows / W))): the sparse bins of a
    skewed column's tail get more than its dense ones. Capped by the bin's rows and W. Partition
    histograms are many rows: only when asked (dbt_analyze_partition_histograms).
    Two levels under the rows' SELECT, not one per step: Spark's analyzer resolves each nested
    SELECT in passes of its own over the whole plan, so a bin's steps (its grid points, W, excess)
    are one expression (grid points and W bound once by an inner transform), and the excess totals
    are bound inside the histogram's. -#}
{% macro _sketch_arrays_sql(plan, merged_rows) %}
  {%- set data_types = plan.table.data_columns | map(attribute='data_type') | list -%}
  {%- set num_bins = dbt_analyze._var('dbt_analyze_histogram_bins') | int -%}
  {%- set quantiles = dbt_analyze._var('dbt_analyze_quantiles') -%}
  {%- set top_k = dbt_analyze._var('dbt_analyze_top_k') | int -%}
  {%- set bin_ranks = [] -%}
  {%- for i in range(num_bins + 1) -%}{%- do bin_ranks.append(i / num_bins) -%}{%- endfor -%}
  {%- set fine_ranks = [] -%}
  {%- for i in range(10 * num_bins + 1) -%}{%- do fine_ranks.append(i / (10 * num_bins)) -%}{%- endfor -%}
  {%- set integral_like = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) in ('integral', 'date') -%}
    {%- do integral_like.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}
  {%- set bin_rows = '(n / ' ~ num_bins ~ ')' -%}
  {#- A bin's W and its grid points (the grid's points 10*i .. 10*i+10 are the quantiles between its
      bounds), each taken once, and then the values beyond them that its rows would fill at random. -#}
  {%- set domain = ('if(data_type in (' ~ integral_like | join(', ')
                    ~ '), bounds[i + 1] - bounds[i] + if(i = 0, 1, 0), null)') if integral_like
                   else 'cast(null as double)' -%}
  {%- set grid_points = 'size(array_distinct(filter(slice(grid, 10 * i + 1, 11), x -> x > bounds[i] or i = 0)))' -%}
  {%- set excess = 'greatest(if(b.domain > 0, b.domain * (1 - exp(-' ~ bin_rows ~ ' / b.domain)), 0) - b.grid_points, 0)' -%}
  {#- A bin with 3x more rows than values is full (95% for random rows), and served first. -#}
  {%- set full = bin_rows ~ ' >= 3 * b.domain' -%}
  {%- set bins = 'if(bounds is null, null, transform(transform(sequence(0, ' ~ (num_bins - 1) ~ "), i -> named_struct('bin', i,"
                 ~ " 'grid_points', " ~ grid_points ~ ", 'domain', " ~ domain ~ ")), b -> named_struct('bin', b.bin,"
                 ~ " 'grid_points', b.grid_points, 'domain', b.domain, 'full_excess', if(" ~ full ~ ', ' ~ excess
                 ~ ", 0), 'open_excess', if(" ~ full ~ ', 0, ' ~ excess ~ '))))' -%}
  {%- set histograms_for = 'true' if dbt_analyze._var('dbt_analyze_partition_histograms') else 'is_table = 1' -%}
  {#- A sketch only where it has values (every reader refuses an empty one), and a table's only when
      every partition has a state of the column. -#}
  {%- set sketch = 'kll is not null and kll_sketch_get_n_double(kll) > 0 and (is_table = 0 or partitions_analyzed = partition_count)' -%}
  {#- Per group of columns by the items their sketches track: one item more than the list may keep,
      to see where the rule stops; a sketch reports at most the items it tracks, and of those only
      the ones it counts for sure. -#}
  {%- set top_groups = dbt_analyze._top_k_groups(plan) -%}
  {%- set tops = [] -%}
  {%- set most_commons = [] -%}
  {%- for group in top_groups -%}
    {%- set most_common = (dbt_analyze._var('dbt_analyze_most_common_values') or group.tracked) | int -%}
    {%- do most_commons.append(most_common | string) -%}
    {%- do tops.append(dbt_analyze._top_values_sql(data_types, 'top_state', [[top_k, most_common] | max + 1, group.tracked] | min)) -%}
  {%- endfor -%}
  {%- set top = 'if(top_state is null, null, ' ~ dbt_analyze._by_top_k_group_sql(top_groups, tops) ~ ')' -%}
  {#- The top values' counts are the sample's where the sketches saw a sample (sketch_n of the n
      values): each stands for n / sketch_n rows, and only a value the sample held more than once
      is backed by it. A boolean's counts are its exact true and false counts. -#}
  {%- set booleans = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) == 'boolean' -%}
    {%- do booleans.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}
  {%- set scale = 'if(' ~ ('data_type in (' ~ booleans | join(', ') ~ ') or ' if booleans else '')
                  ~ 'coalesce(sketch_n >= n, true), 1.0, n / nullif(sketch_n, 0))' -%}
  {%- set relation -%}
  (select *, size(array_distinct(grid)) as grid_distinct,
          {{ bins }} as bins,
          {{ dbt_analyze._by_top_k_group_sql(top_groups, most_commons) }} as most_common,
          {{ dbt_analyze._most_common_rule_sql('top_sorted', 'n / top_scale') }} as rule_listed,
          {#- Each bound rendered once: it is one bin's upper bound and the next one's lower. The
              ends are the column's exact min and max: a sketch fed a sample knows the sample's
              (Spark's optimizer refuses a histogram narrower than the column's range). -#}
          transform(bounds, (x, i) -> case when i = 0 and min_value is not null then min_value
                                           when i = size(bounds) - 1 and max_value is not null then max_value
                                           else {{ dbt_analyze._render_by_type_sql('x', data_types) }} end) as rendered_bounds
   from (
     select *,
            if({{ sketch }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(quantiles) }}), null) as q_values,
            if({{ sketch }} and {{ histograms_for }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(bin_ranks) }}), null) as bounds,
            if({{ sketch }} and {{ histograms_for }}, kll_sketch_get_quantile_double(kll, {{ dbt_analyze._ranks_sql(fine_ranks) }}), null) as grid,
            {{ scale }} as top_scale,
            array_sort(filter({{ dbt_analyze._top_items_sql(data_types, top) }},
                              v -> v.item is not null and (v.count > 1 or {{ scale }} = 1.0)),
                       (l, r) -> case when l.count > r.count then -1 when l.count < r.count then 1
                                      when l.item < r.item then -1 when l.item > r.item then 1 else 0 end) as top_sorted
     from {{ merged_rows }}
   ))
  {%- endset -%}
  {#- The NDV beyond the grid's distinct points. -#}
  {%- set beyond_grid = '(greatest(ndv - grid_distinct, 0))' -%}
  {%- set histogram -%}
  {#- The bins' excess totals, bound once for every bin: a one-element array's transform. -#}
  transform(array(aggregate(bins, named_struct('full', cast(0 as double), 'open', cast(0 as double)),
                            (total, b) -> named_struct('full', total.full + b.full_excess, 'open', total.open + b.open_excess))),
            excess_total -> transform(bins, b -> named_struct(
              'bin', b.bin,
              'lower_bound', rendered_bounds[b.bin],
              'upper_bound', rendered_bounds[b.bin + 1],
              'row_count', {{ bin_rows }},
              {#- Capped by the bin's rows and, for integers and dates, its W values. -#}
              'distinct_count', cast(greatest(1, least(
                if(b.domain is null, round(ndv * b.grid_points / grid_distinct),
                   b.grid_points + round(b.full_excess * least(1, {{ beyond_grid }} / nullif(excess_total.full, 0))
                                         + greatest({{ beyond_grid }} - excess_total.full, 0)
                                           * coalesce(b.open_excess / nullif(excess_total.open, 0), 0))),
                ceil({{ bin_rows }}), if(b.domain is null, 1e18, greatest(b.domain, 1)))) as bigint))))[0]
  {%- endset -%}
  {#- The most common values: the first top_k, and beyond them every value more common than the
      average of the values not listed before it (dbt_analyze._most_common_rule_sql). Truncated:
      the list stopped where the sketch stopped counting. The rule passed every value it reported
      (short of the cap, and of the column's values: the NDV is off by about 1%), and the last of
      them is within 1.5x of twice the sketch's error, below which it reports none: the values go
      on below it (a list of heavy values over rare ones ends far above it: docs/decisions/top-k-sketch-size.md). -#}
  {{ return({'relation': relation, 'columns': {
      'quantiles': 'if(q_values is null, null, transform(' ~ dbt_analyze._ranks_sql(quantiles)
                   ~ ", (q, i) -> named_struct('quantile', q, 'value', "
                   ~ dbt_analyze._render_by_type_sql('q_values[i]', data_types) ~ ')))',
      'histogram': histogram,
      'top_values': 'transform(slice(top_sorted, 1, greatest(' ~ top_k ~ ", least(most_common, rule_listed))),"
                    ~ " (v, i) -> named_struct('rank', i + 1, 'value', v.item, 'frequency',"
                    ~ " cast(round(v.count * top_scale) as bigint)))",
      'sketch_values': "if(column_name = '', null, sketch_n)",
      'top_values_truncated': 'top_state is not null and size(top_sorted) > 0 and rule_listed = size(top_sorted)'
                              ~ ' and size(top_sorted) < least(most_common, 0.9 * coalesce(distinct_count, ndv))'
                              ~ ' and get(top_sorted, size(top_sorted) - 1).count <= 3 * '
                              ~ dbt_analyze._top_k_error_sql('top_state')}}) }}
{% endmacro %}

{#- How many of a column's top values (sorted, most common first) are most common values: the
    longest run from the first in which each value, seen more than once, is at least 1.25 times as
    common as the average of the values not listed before it (the column's non-null values n, of
    the sample where the sketches saw one, and its distinct count ndv, less the values before it).
    PostgreSQL's ANALYZE keeps a value on its list by the same comparison with the rest, on its
    sample; a value beyond the run is left to the histogram's bins. -#}
{% macro _most_common_rule_sql(sorted, n='n') %}
  {#- One pass that carries the rows listed so far (a sum per value would be quadratic in the list,
      which reaches the items a sketch tracks). -#}
  {%- set passes = 'v.count > 1 and v.count >= 1.25 * (' ~ n ~ ' - kept.listed_rows)'
                   ~ ' / greatest(coalesce(distinct_count, ndv) - kept.listed, 1)' -%}
  {{ return('aggregate(' ~ sorted ~ ", named_struct('listed', 0, 'listed_rows', cast(0 as bigint), 'stopped', false),"
            ~ ' (kept, v) -> if(kept.stopped or not (' ~ passes ~ "), named_struct('listed', kept.listed,"
            ~ " 'listed_rows', kept.listed_rows, 'stopped', true), named_struct('listed', kept.listed + 1,"
            ~ " 'listed_rows', kept.listed_rows + v.count, 'stopped', false))).listed") }}
{% endmacro %}

{#- A merged row's top value candidates: the merged top-k sketch's (top), and a boolean's own true
    and false counts, exact, also where older states of the column carry a sketch. -#}
{% macro _top_items_sql(data_types, top) %}
  {%- set booleans = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) == 'boolean' -%}
    {%- do booleans.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}
  {%- if not booleans -%}{{ return(top) }}{%- endif -%}
  {{ return('if(data_type in (' ~ booleans | join(', ')
            ~ "), filter(array(named_struct('item', 'true', 'count', true_count_merged),"
            ~ " named_struct('item', 'false', 'count', false_count_merged)), v -> v.count > 0), " ~ top ~ ')') }}
{% endmacro %}
