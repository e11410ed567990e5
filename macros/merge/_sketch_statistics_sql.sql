{#-
  Statistics read off the merged sketches, per partition and for the table (no scan):
    column_quantiles   the configured quantiles of the merged KLL sketch
    column_top_values  the k most common values of the merged top-k sketch, with their counts
    column_histograms  equi-height bins, Spark CBO style: num_bins bins whose bounds are the KLL
                       quantiles at i/num_bins, each holding rows/num_bins rows. A bin's distinct
                       count is estimated without a scan from the column's NDV (HLL) and a 10x finer
                       quantile grid. Other than integers and dates: the NDV shared out in proportion
                       to the distinct grid points in the bin (exact while the column has fewer
                       distinct values than the grid). Integers and dates: each bin has its distinct
                       grid points; the NDV beyond them goes first to bins with 3x more rows than the
                       W values of (lower, upper] (full: all W), then to the others in proportion to
                       how many more values they would hold if their rows fell at random on their W
                       values (W (1 - exp(-rows / W))): the sparse bins of a skewed column's tail get
                       more than its dense ones. Capped by the bin's rows and W.
-#}

{#- The SQL that renders a KLL value (a double) back as a value of the column's type. -#}
{% macro _from_quantile_sql(x, data_type) %}
  {%- set category = dbt_analyze._type_category(data_type) -%}
  {%- if category == 'date' -%}{{ return('cast(date_from_unix_date(cast(' ~ x ~ ' as int)) as string)') }}
  {%- elif category == 'timestamp' -%}{{ return('cast(timestamp_micros(cast(' ~ x ~ ' as bigint)) as string)') }}
  {%- elif category == 'timestamp_ntz' -%}
    {#- Its microseconds are UTC's (_quantile_input_sql): added to the epoch without a zone. -#}
    {{ return("cast(timestamp_ntz'1970-01-01 00:00:00' + make_dt_interval(0, 0, 0, cast(cast(cast(" ~ x ~ ' as bigint) as decimal(18, 0)) / 1000000 as decimal(18, 6))) as string)') }}
  {%- elif category == 'integral' -%}{{ return('cast(cast(round(' ~ x ~ ') as bigint) as string)') }}
  {%- elif category == 'decimal' -%}
    {#- A double near the type's limit can round past it (99...9 of decimal(38,0) is 1e38), where
        the cast gives NULL with ANSI mode off (dbt-spark's sessions) and fails the merge with it on
        (a Thrift server's default): such a value is the type's limit. -#}
    {%- set digits = modules.re.findall('[0-9]+', data_type) or ['10', '0'] -%}
    {%- set scale = (digits[1] if digits | length > 1 else '0') | int -%}
    {%- set limit = '9' * (digits[0] | int - scale) ~ ('.' ~ '9' * scale if scale else '') ~ 'BD' -%}
    {{ return('cast(coalesce(try_cast(' ~ x ~ ' as ' ~ data_type ~ '), case when ' ~ x ~ ' > 0 then ' ~ limit ~ ' when ' ~ x ~ ' < 0 then -' ~ limit ~ ' end) as string)') }}
  {%- elif category == 'fractional' -%}{{ return('cast(cast(' ~ x ~ ' as ' ~ data_type ~ ') as string)') }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- A CASE over the data types present: one rendering per type. -#}
{% macro _render_by_type_sql(x, data_types) %}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._from_quantile_sql(x, data_type) -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then ' ~ dbt_analyze._from_quantile_sql(x, data_type)) -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' end' if branches else 'cast(null as string)') }}
{% endmacro %}

{#- A constant array<double> of ranks (the quantile functions want constant ranks), folded from
    one string: an array(...) of 2,541 literals (the histogram's grid) took Spark 0.25 s to plan. -#}
{% macro _ranks_sql(ranks) %}
  {%- set literals = [] -%}
  {%- for rank in ranks -%}{%- do literals.append('%.17g' | format(rank | float)) -%}{%- endfor -%}
  {{ return('cast(split(' ~ dbt_analyze._quote_literal(literals | join(',')) ~ ", ',') as array<double>)") }}
{% endmacro %}

{#- The k most common values of the merged top-k sketches (a group's states are of one data type).
    A state keeps its items as plain strings: the sketches of a collated column are read back
    under its collation, so that values equal under it merge into one; a timestamp's items are
    instants (_timestamp_state_sql), rendered here. -#}
{% macro _top_values_sql(data_types, tracked, k) %}
  {%- set merged = 'approx_top_k_estimate(approx_top_k_combine(top_values_sketch, ' ~ tracked ~ '), ' ~ k ~ ')' -%}
  {%- set branches = [] -%}
  {%- for data_type in data_types | unique -%}
    {%- if dbt_analyze._collation(data_type) -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then cast(approx_top_k_estimate(approx_top_k_combine(cast(top_values_sketch as '
                             ~ dbt_analyze._top_values_sketch_type(data_type) ~ '), ' ~ tracked ~ '), ' ~ k ~ ') as array<struct<item:string,count:bigint>>)') -%}
    {%- elif dbt_analyze._type_category(data_type) == 'timestamp' -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(data_type) ~ ' then transform(' ~ merged ~ ", v -> named_struct('item', cast("
                             ~ dbt_analyze._timestamp_from_state_sql('v.item') ~ " as string), 'count', v.count))") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('case data_type ' ~ branches | join(' ') ~ ' else ' ~ merged ~ ' end' if branches else merged) }}
{% endmacro %}

{% macro _sketch_statistics_sql(plan, run_id, states) %}
  {%- set table = plan.table -%}
  {%- set data_types = table.data_columns | map(attribute='data_type') | list -%}
  {%- set partitioned = table.partition_columns | length > 0 -%}
  {%- set grouping = 'grouping sets ((partition_spec, column_name, data_type), (column_name, data_type))' if partitioned else 'column_name, data_type' -%}
  {%- set spec = "coalesce(partition_spec, '')" if partitioned else "''" -%}
  {%- set run = dbt_analyze._quote_literal(run_id) ~ ', ' ~ dbt_analyze._quote_literal(table.schema) ~ ', ' ~ dbt_analyze._quote_literal(table.identifier) -%}
  {%- set num_bins = dbt_analyze._var('dbt_analyze_histogram_bins') | int -%}
  {%- set quantiles = dbt_analyze._var('dbt_analyze_quantiles') -%}
  {%- set top_k = dbt_analyze._var('dbt_analyze_top_k') | int -%}
  {%- set tracked = dbt_analyze._var('dbt_analyze_top_k_tracked') | int -%}
  {%- set bin_ranks = [] -%}
  {%- for i in range(num_bins + 1) -%}{%- do bin_ranks.append(i / num_bins) -%}{%- endfor -%}
  {%- set fine_ranks = [] -%}
  {%- for i in range(10 * num_bins + 1) -%}{%- do fine_ranks.append(i / (10 * num_bins)) -%}{%- endfor -%}
  {%- set this_run = dbt_analyze._this_run_sql(plan) -%}
  {%- set integral_like = [] -%}
  {%- for data_type in data_types | unique if dbt_analyze._type_category(data_type) in ('integral', 'date') -%}
    {%- do integral_like.append(dbt_analyze._quote_literal(data_type)) -%}
  {%- endfor -%}

  {#- Merged KLL sketches per partition and for the table (the table only when every partition has a
      state; one whose column is all NULL has no sketch, which the merge skips). Partition
      histograms are many rows (bins x columns x partitions): only when asked, else the histogram
      merges the table's sketches alone. -#}
  {%- set merged_kll = dbt_analyze._merged_kll_sql(states, grouping, spec, 'grouping(partition_spec)' if partitioned else '1', this_run) -%}
  {%- set histogram_kll = merged_kll if dbt_analyze._var('dbt_analyze_partition_histograms')
                          else dbt_analyze._merged_kll_sql(states, 'column_name, data_type', "''", '1', this_run) -%}

  {%- set quantiles_sql -%}
  insert into {{ dbt_analyze._storage_relation('column_quantiles_history') }}
  select {{ run }}, partition_spec, column_name, quantile, {{ dbt_analyze._render_by_type_sql('value', data_types) }}
  from (select *, kll_sketch_get_quantile_double(sketch, {{ dbt_analyze._ranks_sql(quantiles) }}) as q_values from ({{ merged_kll }}))
  lateral view inline(transform({{ dbt_analyze._ranks_sql(quantiles) }},
                                (q, i) -> named_struct('quantile', q, 'value', q_values[i]))) q
  {%- endset -%}

  {%- set histograms_sql -%}
  insert into {{ dbt_analyze._storage_relation('column_histograms_history') }}
  select {{ run }}, partition_spec, column_name, bin,
         {{ dbt_analyze._render_by_type_sql('lower', data_types) }}, {{ dbt_analyze._render_by_type_sql('upper', data_types) }},
         bin_rows,
         {#- Capped by the bin's rows and, for integers and dates, its W values (only then: Spark's
             greatest() skips NULLs, so greatest(NULL, 1) would cap every other type at 1). -#}
         cast(greatest(1, least(
           if(domain is null, round(ndv * grid_points / grid_distinct),
              grid_points + round(full_excess * least(1, beyond_grid / nullif(sum(full_excess) over per_column, 0))
                                  + greatest(beyond_grid - sum(full_excess) over per_column, 0)
                                    * coalesce(open_excess / nullif(sum(open_excess) over per_column, 0), 0))),
           ceil(bin_rows), if(domain is null, 1e18, greatest(domain, 1)))) as bigint)
  from (
    select *, n / {{ num_bins }} as bin_rows,
           {#- The grid's points 10*bin .. 10*bin+10 are the quantiles between this bin's bounds. -#}
           size(array_distinct(filter(slice(grid, 10 * bin + 1, 11), x -> x > lower or bin = 0))) as grid_points,
           {#- Integers and dates: W, the count of values in (lower, upper]; the values beyond the
               grid points that the bin's rows would fill at random; a bin with 3x more rows than
               values is full (95% for random rows), and served first. -#}
           {{ ('if(data_type in (' ~ integral_like | join(', ') ~ '), upper - lower + if(bin = 0, 1, 0), null)') if integral_like else 'cast(null as double)' }} as domain,
           greatest(if(domain > 0, domain * (1 - exp(-bin_rows / domain)), 0) - grid_points, 0) as excess,
           if(bin_rows >= 3 * domain, excess, 0) as full_excess,
           if(bin_rows >= 3 * domain, 0, excess) as open_excess,
           greatest(ndv - grid_distinct, 0) as beyond_grid
    from (
      {#- Bounds and grid are read off each sketch once, before the bins are generated from them. -#}
      select *, size(array_distinct(grid)) as grid_distinct
      from (
        select *, kll_sketch_get_quantile_double(sketch, {{ dbt_analyze._ranks_sql(bin_ranks) }}) as bounds,
               kll_sketch_get_quantile_double(sketch, {{ dbt_analyze._ranks_sql(fine_ranks) }}) as grid
        from ({{ histogram_kll }})
      )
    )
    lateral view inline(transform(sequence(0, {{ num_bins - 1 }}),
                                  i -> named_struct('bin', i, 'lower', bounds[i], 'upper', bounds[i + 1]))) b
  )
  window per_column as (partition by partition_spec, column_name)
  {%- endset -%}

  {%- set top_values_sql -%}
  insert into {{ dbt_analyze._storage_relation('column_top_values_history') }}
  select * from (
  select {{ run }}, partition_spec, column_name, row_number() over (partition by partition_spec, column_name order by t.count desc, t.item) as rank,
         t.item, t.count
  from (
    select merged.* from (
      select {{ spec }} as partition_spec, column_name, {{ 'grouping(partition_spec)' if partitioned else '1' }} as is_table,
             count(*) as partitions, {{ dbt_analyze._top_values_sql(data_types, tracked, top_k + 1) }} as top
      from {{ states }} where column_name <> '' and top_values_sketch is not null
      group by {{ grouping }}
    ) merged cross join {{ this_run }}
    {#- A table row only when every partition has a state of the column. -#}
    where is_table = 0 or partitions = this_run.partition_count
  )
  lateral view inline(top) t
  where t.item is not null  -- the sketch counts NULL as an item; null counts are exact elsewhere
  ) where rank <= {{ top_k }}
  {%- endset -%}
  {{ return([quantiles_sql, histograms_sql, top_values_sql]) }}
{% endmacro %}

{#- The KLL sketches of the states merged per grouping, with row count and NDV; a table row only
    when every partition has a state of the column (this_run: _this_run_sql). -#}
{% macro _merged_kll_sql(states, grouping, spec, is_table, this_run) %}
  {%- set sql -%}
    select merged.* from (
      select {{ spec }} as partition_spec, column_name, data_type, {{ is_table }} as is_table,
             count(*) as partitions, kll_merge_agg_double(quantile_sketch) as sketch, sum(value_count) as n,
             least(hll_sketch_estimate(hll_union_agg(ndv_sketch, true)), sum(value_count)) as ndv
      from {{ states }} where column_name <> ''
      group by {{ grouping }}
    ) merged cross join {{ this_run }}
    where (is_table = 0 or partitions = this_run.partition_count) and kll_sketch_get_n_double(sketch) > 0
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
