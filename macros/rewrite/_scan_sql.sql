{#-
  The rewrite: one SELECT that scans the table once and yields one state row per scanned
  partition and column (plus the partition's row with column_name ''), in the columns of
  partition_states (the run inserts it there). The aggregate groups
  by the partition columns and prunes to the partitions to scan; the tiny aggregate is then
  unpivoted with inline(), so sketches never leave the server.

  plan:       from _plan_target (table, listing, scan_columns, sketches, sample, sketch_rate)
  specs:      partition specs to scan ([''] for an unpartitioned table)
  With plan.sketch_rate, the KLL and top-k sketches take a seeded Bernoulli sample of the rows (a
  flag a projection draws, under the one that makes their inputs NULL outside it: Spark refuses a
  nondeterministic FILTER); the exact measures and HLL see every row, and each column's
  sketch_values counts the values the sample held.
  With held_columns (SQL of more columns), one row per partition instead: its own fields and these
  beside its column states as one array, `states`, which a batch of runs holds and unpivots once
  for all of them (_write_runs_together, _merged_of_held_sql).
  An unpartitioned table's one partition takes its listing's literals into the aggregate's row
  (which exists even for no rows) rather than joining them: a join of the aggregate is one more
  Spark job. A small scan (_scans_small) reads its files in one task: its aggregate then needs no
  shuffle, whose stage and sketch buffers' serialization cost more than its rows.
-#}
{% macro _scan_sql(plan, specs, run_id, held_columns=none) %}
  {%- set table = plan.table -%}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(table.partition_columns) -%}
  {%- set fields = dbt_analyze._state_fields() -%}

  {#- The aggregate: c<i>__<field> for every scanned column and state field that applies. A
      sketch's per-row input is projected under the aggregate as __dbt_analyze_c<i>__<field>. -#}
  {%- set aggregates = [spec_sql ~ ' as __partition_spec', 'count(1) as __row_count'] -%}
  {%- set sampled = plan.get('sketch_rate') is not none -%}
  {%- set sketch_inputs = [] -%}
  {%- set aliases = {} -%}
  {#- A column group goes in as a column whose values are its tuples' hashes (_column_groups.sql). -#}
  {%- set columns = plan.scan_columns + plan.get('column_groups', []) -%}
  {%- for column in columns -%}
    {%- set column_index = loop.index0 -%}
    {%- set category = dbt_analyze._type_category(column.data_type) -%}
    {%- set quoted = dbt_analyze._scanned_value_sql(column) -%}
    {%- for field, type in fields if field != 'singletons'
        and dbt_analyze._measure_at_level(field, category, plan.sketches) -%}
      {%- set alias = 'c' ~ column_index ~ '__' ~ field -%}
      {%- if field in dbt_analyze._sketch_fields() -%}
        {%- set input = dbt_analyze._sketch_input(field, quoted, category, dbt_analyze._collation(column.data_type)) -%}
        {%- if input and sampled and field in dbt_analyze._distribution_sketch_fields() -%}
          {%- set input = dbt_analyze._sampled_input_sql(input) -%}
        {%- endif -%}
        {%- if input -%}{%- do sketch_inputs.append(input ~ ' as __dbt_analyze_' ~ alias) -%}{%- endif -%}
        {%- set expr = dbt_analyze._sketch_aggregate(field, '__dbt_analyze_' ~ alias if input else none,
                                                     dbt_analyze._top_k_tracked(plan, column.name)) -%}
      {%- elif field == 'sketch_values' -%}
        {%- set expr = dbt_analyze._measure_sketch_values(quoted, category, sampled) -%}
      {%- else -%}
        {%- set expr = dbt_analyze._measure(field, quoted, category) -%}
      {%- endif -%}
      {%- if expr -%}
        {%- do aggregates.append(expr ~ ' as ' ~ alias) -%}
        {%- do aliases.update({alias: 'a.' ~ alias}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}

  {#- Where the listing's fields are: the aggregate's own row (an unpartitioned table), or the
      listing's rows joined with the aggregate's. -#}
  {%- set listing_in_aggregate = not table.partition_columns and specs | length == 1 -%}
  {%- set l = 'a.' if listing_in_aggregate else 'l.' -%}

  {#- One struct per column (and one for the partition itself), all of the same type. -#}
  {%- set structs = [] -%}
  {%- for column in [none] + columns -%}
    {%- set column_index = loop.index0 - 1 -%}
    {%- set parts = ["'column_name', " ~ (dbt_analyze._quote_literal(column.name) if column else "''"),
                     "'data_type', " ~ (dbt_analyze._quote_literal(column.data_type) if column
                                        else 'cast(null as string)')] -%}
    {%- for field, type in fields -%}
      {%- set alias = aliases.get('c' ~ column_index ~ '__' ~ field) -%}
      {%- if alias and field == 'value_count' -%}
        {#- An empty partition has no aggregate row: its count is 0, not NULL. -#}
        {%- set value = 'coalesce(' ~ alias ~ ', 0)' -%}
      {%- elif field == 'singletons' and column is not none and plan.singletons -%}
        {%- set value = dbt_analyze._singletons_sql(plan.singletons, column.name, l) -%}
      {%- else -%}
        {%- set value = alias or 'null' -%}
      {%- endif -%}
      {%- if plan.sample and alias and field in dbt_analyze._scaled_fields() -%}
        {#- A sampled partition's counts, scaled to its exact row count. -#}
        {%- set value = ('round(' if type == 'bigint' else '(') ~ value
                        ~ ' * coalesce(' ~ l ~ 'exact_rows / a.__row_count, 1))' -%}
      {%- endif -%}
      {%- do parts.append(dbt_analyze._quote_literal(field) ~ ', cast(' ~ value ~ ' as ' ~ type ~ ')') -%}
    {%- endfor -%}
    {%- do structs.append('named_struct(' ~ parts | join(', ') ~ ')') -%}
  {%- endfor -%}

  {#- The listing as rows, with the time of the scan: a column, not a literal (see _run_numbers_sql). -#}
  {%- set listing_columns = ['partition_spec', 'file_count', 'size_bytes', 'modified_at', 'exact_rows', 'now'] -%}
  {%- set listed = [] -%}
  {%- for spec in specs -%}
    {%- set files = plan.listing.get(spec, {'file_count': 0, 'size_bytes': 0, 'modified_at': none}) -%}
    {%- set exact_rows = (plan.exact_rows or {}).get(spec) if spec in (plan.sample or {}) else none -%}
    {%- do listed.append([dbt_analyze._quote_literal(spec), files.file_count, files.size_bytes,
                          dbt_analyze._quote_literal(files.modified_at),
                          'cast(' ~ (exact_rows if exact_rows is not none else 'null') ~ ' as bigint)',
                          'current_timestamp()']) -%}
  {%- endfor -%}
  {%- if listing_in_aggregate -%}
    {%- for value in listed[0] -%}
      {%- do aggregates.append(value ~ ' as ' ~ listing_columns[loop.index0]) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set listing_rows = [] -%}
  {%- for values in listed -%}{%- do listing_rows.append('(' ~ values | join(', ') ~ ')') -%}{%- endfor -%}
  {%- set partition_columns = [] -%}
  {%- for column in table.partition_columns -%}
    {%- do partition_columns.append(dbt_analyze._quote_identifier(column)) -%}
  {%- endfor -%}

  {#- A state's columns in partition_states' order: the partition's own, and its column's (s). -#}
  {%- set own = {'run_id': dbt_analyze._quote_literal(run_id), 'table_schema': dbt_analyze._quote_literal(table.schema),
                 'table_name': dbt_analyze._quote_literal(table.identifier), 'partition_spec': l ~ 'partition_spec',
                 'row_count': 'coalesce(' ~ l ~ 'exact_rows, a.__row_count, 0)', 'file_count': l ~ 'file_count',
                 'size_bytes': l ~ 'size_bytes', 'files_modified_at': l ~ 'modified_at',
                 'sketches': dbt_analyze._quote_literal(plan.sketches),
                 'sample_rows': 'if(' ~ l ~ 'exact_rows is null, null, a.__row_count)', 'collected_at': l ~ 'now',
                 'sketch_rate': 'cast(' ~ (plan.sketch_rate if sampled else 'null') ~ ' as double)'} -%}
  {%- set selected = [] -%}
  {%- for name, type in dbt_analyze._storage_columns('partition_states') -%}
    {%- if name in own -%}
      {%- do selected.append(own[name] ~ (' as ' ~ name if own[name] != l ~ name else '')) -%}
    {%- elif held_columns is none -%}
      {%- do selected.append('s.' ~ name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if held_columns is not none -%}
    {%- do selected.extend([held_columns, 'array(\n    ' ~ structs | join(',\n    ') ~ '\n  ) as states']) -%}
  {%- endif %}
  select {{ selected | join(', ') }}
  {%- if not listing_in_aggregate %}
  from (values {{ listing_rows | join(', ') }}) as l({{ listing_columns | join(', ') }})
  left join (
  {%- else %}
  from (
  {%- endif %}
    select {{ aggregates | join(',\n           ') }}
    {%- set scanned = table.quoted ~ ' ' ~ dbt_analyze._scan_filter_sql(plan, specs, plan.sample) %}
    from (select {{ '/*+ COALESCE(1) */ ' if dbt_analyze._scans_small(plan, specs) }}*
          {%- for input in sketch_inputs %}, {{ input }}{% endfor %}
          from {{ dbt_analyze._sampled_rows_sql(scanned, plan.sketch_rate) if sampled else scanned }})
    {%- if partition_columns %}
    group by {{ partition_columns | join(', ') }}
    {%- endif %}
  ) a{{ ' on a.__partition_spec = l.partition_spec' if not listing_in_aggregate }}
  {%- if held_columns is none %}
  lateral view inline(array(
    {{ structs | join(',\n    ') }}
  )) s
  {%- endif %}
{% endmacro %}

{#- WHERE of a scan: prune to the partitions to scan (and name them to the metastore), and keep a
    sample of the sampled ones (Bernoulli sampling, as Spark's TABLESAMPLE; the seed makes every
    pass see the same rows). -#}
{% macro _scan_filter_sql(plan, specs, sample) %}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(plan.table.partition_columns) -%}
  {%- set conditions = [] -%}
  {%- if not plan.scan_everything -%}
    {%- set quoted = [] -%}
    {%- for spec in specs -%}{%- do quoted.append(dbt_analyze._quote_literal(spec)) -%}{%- endfor -%}
    {%- do conditions.append(spec_sql ~ ' in (' ~ quoted | join(', ') ~ ')') -%}
    {%- set by_values = dbt_analyze._partition_values_filter_sql(plan.table, specs) -%}
    {%- if by_values -%}{%- do conditions.append(by_values) -%}{%- endif -%}
  {%- endif -%}
  {%- if sample -%}
    {%- set branches = [] -%}
    {%- for spec, fraction in sample.items() -%}
      {%- do branches.append('when ' ~ dbt_analyze._quote_literal(spec) ~ ' then ' ~ fraction) -%}
    {%- endfor -%}
    {%- do conditions.append('rand(' ~ dbt_analyze._var('dbt_analyze_sample_seed') ~ ') < case ' ~ spec_sql ~ ' '
                             ~ branches | join(' ') ~ ' else 1.0 end') -%}
  {%- endif -%}
  {{ return('where ' ~ conditions | join(' and ') if conditions else '') }}
{% endmacro %}

{#- The singleton counts of one column per sampled partition, as a CASE on the partition (the
    listing's field, in `listing`). -#}
{% macro _singletons_sql(singletons, column_name, listing) %}
  {%- set branches = [] -%}
  {%- for spec, counts in singletons.items() if column_name in counts -%}
    {%- do branches.append('when ' ~ dbt_analyze._quote_literal(spec) ~ ' then ' ~ counts[column_name]) -%}
  {%- endfor -%}
  {{ return('case ' ~ listing ~ 'partition_spec ' ~ branches | join(' ') ~ ' end' if branches else 'null') }}
{% endmacro %}

{#- For each sampled partition and column (and column group: its tuples' hashes), how many values
    the sample holds exactly once (the f1 of Haas and Stokes' Duj1 estimator), in one grouped pass
    over the same sample. Values are
    grouped as strings; a collated column's under its collation, in a field of its own type. -#}
{% macro _singletons_query_sql(plan, specs, sample) %}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(plan.table.partition_columns) -%}
  {%- set columns = [] -%}
  {%- for column in plan.scan_columns + plan.get('column_groups', []) if dbt_analyze._measure('ndv_sketch', 'x',
                                                              dbt_analyze._type_category(column.data_type)) -%}
    {%- do columns.append(column) -%}
  {%- endfor -%}
  {%- if not columns -%}{{ return(none) }}{%- endif -%}
  {%- set collated_types = [] -%}
  {%- for column in columns if dbt_analyze._collation(column.data_type) and column.data_type not in collated_types -%}
    {%- do collated_types.append(column.data_type) -%}
  {%- endfor -%}
  {%- set value_fields = ['value'] -%}
  {%- for data_type in collated_types -%}{%- do value_fields.append('value_' ~ loop.index) -%}{%- endfor -%}
  {%- set values = [] -%}
  {%- for column in columns -%}
    {%- set quoted = dbt_analyze._scanned_value_sql(column) -%}
    {%- set parts = ["'column_name', " ~ dbt_analyze._quote_literal(column.name),
                     "'value', " ~ ('cast(null as string)' if column.data_type in collated_types
                                    else 'cast(' ~ quoted ~ ' as string)')] -%}
    {%- for data_type in collated_types -%}
      {%- do parts.append("'value_" ~ loop.index ~ "', "
                          ~ (quoted if column.data_type == data_type else 'cast(null as ' ~ data_type ~ ')')) -%}
    {%- endfor -%}
    {%- do values.append('named_struct(' ~ parts | join(', ') ~ ')') -%}
  {%- endfor -%}
  select partition_spec, column_name, count_if(occurrences = 1) as singletons
  from (
    select partition_spec, v.column_name, {% for field in value_fields %}v.{{ field }},
           {% endfor %}count(*) as occurrences
    from (select {{ spec_sql }} as partition_spec, * from {{ plan.table.quoted }} {{ dbt_analyze._scan_filter_sql(plan,
        specs, sample) }})
    lateral view inline(array({{ values | join(', ') }})) v
    where {% for field in value_fields %}v.{{ field }} is not null{{ ' or ' if not loop.last }}{% endfor %}
    group by partition_spec, v.column_name{% for field in value_fields %}, v.{{ field }}{% endfor %}
  )
  group by 1, 2
{% endmacro %}
