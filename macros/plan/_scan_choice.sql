{#-
  What a run scans, once its plan has the table's listing and current states: the columns (the
  requested ones and every column that already has statistics: a rescanned partition's state
  replaces the old one whole, so no column's statistics go stale) and the partitions (the selected
  ones that are new or changed, by the file listing; all of them with full; none with noscan).
  Sets plan.scan_columns, plan.sketches, plan.scan_everything, the rate its distribution sketches
  are fed at (plan.sketch_rate: _sketch_rate; a partition whose state was fed at another is
  stale) and the items its top-k sketches
  track (_top_k_tracked): the request's for every column, else the var's (plan.top_k_tracked) or,
  for a column (plan.top_k_columns), more where its current states track more (`stored_tracked`,
  {column: items}) or its table's runs learned it (`hints`: _top_k_hints). Returns {to_scan,
  skipped, dropped, changed: the selected partitions whose files (or states' columns) changed}.
-#}
{% macro _choose_scan(plan, states, request, stored_tracked=none, hints=none) %}
  {%- set base = request.top_k_tracked or dbt_analyze._var('dbt_analyze_top_k_tracked') | int -%}
  {%- set by_column = {} -%}
  {%- for column in plan.table.data_columns if not request.top_k_tracked -%}
    {%- set items = [base, (stored_tracked or {}).get(column.name, 0), (hints or {}).get(column.name, 0)] | max -%}
    {%- if items > base -%}{%- do by_column.update({column.name: items}) -%}{%- endif -%}
  {%- endfor -%}
  {%- do plan.update({'top_k_tracked': base, 'top_k_columns': by_column}) -%}
  {%- set scan_columns = [] -%}
  {%- set stated = {} -%}
  {%- for spec in plan.all_partitions if spec in states -%}
    {%- do stated.update(states[spec].columns) -%}
  {%- endfor -%}
  {%- for column in plan.table.data_columns if column in plan.columns or stated.get(column.name) == column.data_type -%}
    {%- do scan_columns.append(column) -%}
  {%- endfor -%}
  {%- do plan.update({'sketch_rate': dbt_analyze._sketch_rate(plan, states, request),
                      'column_groups': dbt_analyze._column_groups_to_scan(plan, stated)}) -%}
  {%- set status = dbt_analyze._partition_status(plan, states, scan_columns + plan.column_groups, request.sketches) -%}
  {%- set choice = {'to_scan': [], 'skipped': [], 'dropped': [], 'changed': []} -%}
  {%- for spec in plan.selected_partitions -%}
    {%- do choice[('skipped' if request.noscan or (status[spec] == 'fresh' and not request.full)
                   else 'to_scan')].append(spec) -%}
    {%- if status[spec] != 'fresh' and not request.noscan -%}{%- do choice.changed.append(spec) -%}{%- endif -%}
  {%- endfor -%}
  {%- for spec, value in status.items() if value == 'dropped' -%}{%- do choice.dropped.append(spec) -%}{%- endfor -%}
  {%- do plan.update({'scan_columns': scan_columns, 'sketches': request.sketches,
                      'scan_everything': choice.to_scan | length == plan.all_partitions | length}) -%}
  {{ return(choice) }}
{% endmacro %}

{#- What changed in the columns of the table's partitions since their states were taken, as
    sentences for the log and the run's notes. States of a dropped or retyped column are never
    merged with new ones: the merge reads only states whose column type is today's. -#}
{% macro _schema_changes(plan, states) %}
  {%- set types = {} -%}
  {%- for column in plan.table.data_columns -%}{%- do types.update({column.name: column.data_type}) -%}{%- endfor -%}
  {%- set stored = {} -%}
  {%- for spec in plan.all_partitions if spec in states -%}
    {%- for column, data_type in states[spec].columns.items() if types.get(column) != data_type
        and data_type != dbt_analyze._column_group_type() -%}
      {%- do stored.setdefault(column, []).append(data_type) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set changes = [] -%}
  {%- for column, old_types in stored | dictsort -%}
    {%- if column not in types -%}
      {%- do changes.append("column '" ~ column ~ "' was dropped: its statistics are left out") -%}
    {%- else -%}
      {%- do changes.append("column '" ~ column ~ "' changed type from " ~ old_types | unique | join(', ') ~ ' to '
                            ~ types[column]
                            ~ ': statistics of the old type (' ~ old_types | length
                            ~ ' partition state(s)) are not merged with new ones') -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(changes) }}
{% endmacro %}

{#- {spec: fresh | stale | new | dropped} for every partition of the table, and for partitions
    that are gone but still counted in the table's current statistics, against `columns` with
    their current types and the sketches asked for, each column's top-k sketches tracking as many
    items as the run's (the rules: partition_states.py's
    partition_status, which loops over the partitions: thousands, on some tables). -#}
{% macro _partition_status(plan, states, columns, sketches='basic') %}
  {%- set types = {} -%}
  {%- set native_top_k = [] -%}
  {%- for column in columns -%}
    {%- do types.update({column.name: column.data_type}) -%}
    {%- if sketches == 'full'
          and dbt_analyze._type_category(column.data_type) in dbt_analyze._native_top_k_categories() -%}
      {%- do native_top_k.append(column.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set tracked = {} -%}
  {%- for column in columns if sketches == 'full' and column.data_type != dbt_analyze._column_group_type() -%}
    {%- do tracked.update({column.name: dbt_analyze._top_k_tracked(plan, column.name)}) -%}
  {%- endfor -%}
  {{ return(adapter.dbt_analyze_partition_status(plan.all_partitions, plan.listing, states, types, native_top_k,
                                                  sketches, tracked, plan.get('sketch_rate'))) }}
{% endmacro %}

{#- The rate at which a run feeds its KLL and top-k sketches (none: every row). The exact measures
    and HLL see every row; the distribution sketches of a large table see a seeded Bernoulli
    sample sized so that its largest partition's state sees dbt_analyze_sketch_sample_rows rows
    (PostgreSQL and Oracle build histograms and frequencies from samples too). One rate per table:
    sketches fed at different rates would merge with the wrong weights (a partition read at 10%
    would count a tenth), so a run keeps the rate of the table's stored states, and chooses anew
    only when it scans every partition (a table model's post-hook: the whole table) or the states
    disagree; partitions whose states were fed at another rate are then stale, and scanned again
    (_partition_status). Every row with sample_sketches false, basic sketches (no KLL or top-k) or
    the whole-run `sample` (its rows are a sample already), and for tables of at most 1 MiB of
    files, whose rows cost little. The partitions' rows come from a count(*), which Parquet
    answers from its footers. -#}
{% macro _sketch_rate(plan, states, request) %}
  {%- if not request.sample_sketches or request.sketches != 'full' or request.sample or request.noscan -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set stored = [] -%}
  {%- for spec in plan.all_partitions if spec in states and states[spec].get('fingerprint') is not none -%}
    {%- do stored.append(states[spec].get('sketch_rate')) -%}
  {%- endfor -%}
  {%- set whole = request.full and plan.selected_partitions | length == plan.all_partitions | length -%}
  {%- if stored and stored | unique | list | length == 1 and not whole -%}
    {{ return(stored[0]) }}
  {%- endif -%}
  {%- set sizes = [0] -%}
  {%- for spec in plan.selected_partitions if spec in plan.listing -%}{%- do sizes.append(plan.listing[spec].size_bytes) -%}{%- endfor -%}
  {%- if sizes | max <= 1048576 -%}{{ return(none) }}{%- endif -%}
  {%- set counted = {'table': plan.table,
                     'scan_everything': plan.selected_partitions | length == plan.all_partitions | length} -%}
  {%- set counts = dbt_analyze._run_at_once(['select count(1) from ' ~ plan.table.quoted ~ ' '
                                             ~ dbt_analyze._scan_filter_sql(counted, plan.selected_partitions, none)
                                             ~ dbt_analyze._group_by_partitions_sql(plan.table)],
                                            settings=[dbt_analyze._partition_filter_settings()])[0] -%}
  {%- set st = namespace(largest=0) -%}
  {%- for row in counts -%}{%- set st.largest = [st.largest, row[0] | int] | max -%}{%- endfor -%}
  {%- set largest = st.largest -%}
  {%- set rate = dbt_analyze._var('dbt_analyze_sketch_sample_rows') | int / largest if largest else 1 -%}
  {{ return(('%.6g' | format(rate)) | float if rate < 1 else none) }}
{% endmacro %}

{#- Which partitions to sample and how much: {sample: {spec: fraction}, exact_rows: {spec: rows},
    singletons: {spec: {column: f1}}}. Row counts stay exact: they come from a count(*), which
    Parquet answers from file footers. Partitions smaller than the sample are scanned whole. -#}
{% macro _plan_sample(plan, specs, sample) %}
  {%- set spec_sql = dbt_analyze._partition_spec_sql(plan.table.partition_columns) -%}
  {#- The spec is named: dbt reads a column without a name (an unpartitioned table's spec '') as None. -#}
  {%- set filtered = [dbt_analyze._partition_filter_settings()] -%}
  {%- set counts = dbt_analyze._run_at_once(['select ' ~ spec_sql ~ ' as partition_spec, count(1) from '
                                             ~ plan.table.quoted ~ ' ' ~ dbt_analyze._scan_filter_sql(plan, specs, none)
                                             ~ dbt_analyze._group_by_partitions_sql(plan.table)], settings=filtered)[0] -%}
  {%- set exact_rows = {} -%}
  {%- set fractions = {} -%}
  {%- for row in counts -%}
    {%- set rows = row[1] | int -%}
    {%- set fraction = (sample.percent / 100.0) if 'percent' in sample else (sample.rows / rows if rows else 1.0) -%}
    {%- do exact_rows.update({row[0]: rows}) -%}
    {%- if fraction < 1.0 -%}{%- do fractions.update({row[0]: fraction}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set result = {'sample': fractions, 'exact_rows': exact_rows, 'singletons': {}} -%}
  {%- if fractions -%}
    {%- set sql = dbt_analyze._singletons_query_sql(plan, specs, fractions) -%}
    {%- for row in (dbt_analyze._run_at_once([sql], settings=filtered)[0] if sql else []) if row[0] in fractions -%}
      {%- do result.singletons.setdefault(row[0], {}).update({row[1]: row[2] | int}) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(result) }}
{% endmacro %}

{% macro _group_by_partitions_sql(table) %}
  {%- set columns = [] -%}
  {%- for column in table.partition_columns -%}
    {%- do columns.append(dbt_analyze._quote_identifier(column)) -%}
  {%- endfor -%}
  {{ return(' group by ' ~ columns | join(', ') if columns else '') }}
{% endmacro %}
