{#-
  dbt compile && dbt run-operation estimate_statistics                          every model
  dbt run-operation estimate_statistics --args '{select: [orders_enriched], accuracy: high}'

  Estimates the column statistics of models without running them: their compiled SQL (from the
  last `dbt compile`, `run` or `build`, in target/compiled) is parsed, and their inputs'
  statistics carried through projections, filters, GROUP BY keys, casts, CASE and scalar
  functions by the rules of function_rules.yml (python/src/dbt_analyze; extended with the vars
  dbt_analyze_function_rules and dbt_analyze_function_rules_file). Models are estimated upstream
  first, so a model over an estimated model is estimated too. `accuracy` (default: the var
  dbt_analyze_propagation_accuracy, medium) is the lowest rule accuracy applied; none turns
  propagation off. Results: column_statistics_estimated, one row per model column, unknown
  where nothing could be estimated.
-#}
{% macro estimate_statistics(select=none, accuracy=none) %}
  {{ return(adapter.dispatch('estimate_statistics', 'dbt_analyze')(select, accuracy)) }}
{% endmacro %}

{% macro default__estimate_statistics(select, accuracy) %}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- set accuracy = accuracy or dbt_analyze._var('dbt_analyze_propagation_accuracy') -%}
  {#- Checked here as the library checks it (function_rules.PROPAGATION_LEVELS): before any statement. -#}
  {%- set levels = ['low', 'medium', 'high', 'accurate', 'none'] -%}
  {%- if accuracy not in levels -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: estimate_statistics: propagation accuracy '
                                       ~ dbt_analyze._quote_literal(accuracy) ~ ' is not one of ' ~ levels | join(', ')) }}
  {%- endif -%}
  {%- if accuracy == 'none' -%}
    {{ log('dbt_analyze: propagation is off (accuracy none); nothing estimated', info=True) }}
    {{ return([]) }}
  {%- endif -%}
  {%- set names = [select] if select is string else select -%}
  {%- set models = [] -%}
  {%- set upstream = {} -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.language == 'sql'
                                          and node.package_name != 'dbt_analyze'
                                          and (names is none or node.name in names) -%}
    {%- do models.append({'unique_id': node.unique_id, 'schema': node.schema, 'name': node.alias or node.name,
                          'package_name': node.package_name, 'original_file_path': node.original_file_path,
                          'depends_on': node.depends_on.nodes}) -%}
    {%- for parent_id in node.depends_on.nodes -%}
      {%- set parent = graph.nodes.get(parent_id) or graph.sources.get(parent_id) -%}
      {%- if parent -%}
        {%- do upstream.update({(parent.schema | lower,
                                 (parent.identifier or parent.alias or parent.name) | lower): true}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if names is not none and models | length < names | length -%}
    {%- set found = models | map(attribute='name') | list -%}
    {{ exceptions.raise_compiler_error('dbt_analyze: estimate_statistics: no SQL model named '
                                       ~ (names | reject('in', found) | join(', ')) ~ ' in this project') }}
  {%- endif -%}
  {%- set models = dbt_analyze._with_readable_inputs(models, explicit=names is not none) -%}
  {%- do dbt_analyze._await_statistics() -%}
  {%- do dbt_analyze._ensure_storage() -%}
  {%- set payload = {'models': models, 'statistics': dbt_analyze._input_statistics(upstream.keys() | list),
                     'accuracy': accuracy,
                     'rules': dbt_analyze._var('dbt_analyze_function_rules'),
                     'rules_file': dbt_analyze._var('dbt_analyze_function_rules_file')} -%}
  {%- set result = fromjson(adapter.dbt_analyze_estimate_statistics(tojson(payload))) -%}
  {%- for message in result.messages -%}
    {{ log('dbt_analyze: estimate ' ~ message, info=True) }}
  {%- endfor -%}
  {%- if result.rows -%}
    {%- set estimate_id = dbt_analyze._new_run({}).run_id -%}
    {%- set estimated_at = modules.datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M:%S.%f') -%}
    {%- set rows = [] -%}
    {%- for row in result.rows -%}
      {%- do rows.append(dict(row, estimate_id=estimate_id, estimated_at=estimated_at)) -%}
    {%- endfor -%}
    {%- do run_query(dbt_analyze._insert_document_rows_sql('column_statistics_estimated_history', rows)) -%}
    {{ log('dbt_analyze: ' ~ rows | length ~ ' estimated column(s) written to '
           ~ dbt_analyze._storage_relation('column_statistics_estimated'), info=True) }}
  {%- endif -%}
  {{ return(result.rows) }}
{% endmacro %}

{#- The models whose inputs are all in the catalog, or estimated in this call (a model over a model
    not built yet is estimated from that model's estimates). A model whose input is not there
    would be estimated as unknown for a reason nobody sees (a table dropped, a profile that points
    at another metastore): named requests fail, naming the input; a whole project's run warns and
    leaves the model out. Ephemeral inputs are inlined: they have no table to find. -#}
{% macro _with_readable_inputs(models, explicit) %}
  {%- set estimated = models | map(attribute='unique_id') | list -%}
  {%- set tables_in = {} -%}
  {%- set readable = [] -%}
  {%- for model in models -%}
    {%- set missing = [] -%}
    {%- for parent_id in model.depends_on if parent_id not in estimated -%}
      {%- set parent = graph.nodes.get(parent_id) or graph.sources.get(parent_id) -%}
      {%- if parent and (parent.config or {}).get('materialized') != 'ephemeral' -%}
        {%- set name = parent.identifier or parent.alias or parent.name -%}
        {%- if parent.schema | lower not in tables_in -%}
          {%- do tables_in.update({parent.schema | lower: dbt_analyze._existing_tables(parent.schema)}) -%}
        {%- endif -%}
        {%- if name | lower not in tables_in[parent.schema | lower] -%}
          {%- do missing.append(parent.schema ~ '.' ~ name) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if missing -%}
      {%- set message = 'dbt_analyze: estimate_statistics: cannot estimate ' ~ model.name ~ ': '
                        ~ ('its input ' ~ missing[0] ~ ' is' if missing | length == 1
                           else 'its inputs ' ~ missing | join(', ') ~ ' are')
                        ~ ' not in the catalog (build it first, or check that the profile points at the metastore'
                        ~ ' it was built in)' -%}
      {%- if explicit -%}{{ exceptions.raise_compiler_error(message) }}{%- endif -%}
      {%- do exceptions.warn(message ~ '; ' ~ model.name ~ ' is left out') -%}
    {%- else -%}
      {%- do readable.append(model) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(readable) }}
{% endmacro %}

{#- Current table-level statistics of some tables ((schema, name) pairs, lower case): row count,
    column rows, column groups, histograms and top values, as the estimator reads them. -#}
{% macro _input_statistics(tables) %}
  {%- if not tables -%}{{ return([]) }}{%- endif -%}
  {%- set keys = [] -%}
  {%- for table_schema, table_name in tables -%}
    {%- do keys.append('(' ~ dbt_analyze._quote_literal(table_schema) ~ ', ' ~ dbt_analyze._quote_literal(table_name)
                       ~ ')') -%}
  {%- endfor -%}
  {%- set where = " where partition_spec = '' and (lower(table_schema), lower(table_name)) in (" ~ keys | join(', ')
                  ~ ")" -%}
  {%- set found = {} -%}
  {%- for row in dbt_analyze._json_rows('select table_schema, table_name, row_count from '
                                        ~ dbt_analyze._storage_relation('table_statistics') ~ where) -%}
    {%- do found.update({(row.table_schema | lower, row.table_name | lower): {'schema': row.table_schema,
        'name': row.table_name,
                         'row_count': row.row_count, 'columns': [], 'histograms': {}, 'top_values': {},
                         'column_groups': []}}) -%}
  {%- endfor -%}
  {%- for row in dbt_analyze._json_rows('select table_schema, table_name, column_names, distinct_count, null_count from '
                                        ~ dbt_analyze._storage_relation('column_group_statistics') ~ where) -%}
    {%- set table = found.get((row.table_schema | lower, row.table_name | lower)) -%}
    {%- if table -%}{%- do table.column_groups.append(row) -%}{%- endif -%}
  {%- endfor -%}
  {%- for kind, view in [('columns', 'column_statistics'), ('histograms', 'column_histograms'),
                         ('top_values', 'column_top_values')] -%}
    {%- for row in dbt_analyze._json_rows('select * from ' ~ dbt_analyze._storage_relation(view) ~ where
                                          ~ ' order by table_schema, table_name, column_name'
                                          ~ (', bin' if kind == 'histograms' else ', rank' if kind == 'top_values'
                                             else '')) -%}
      {%- set table = found.get((row.table_schema | lower, row.table_name | lower)) -%}
      {%- if table and kind == 'columns' -%}
        {%- do table.columns.append(row) -%}
      {%- elif table -%}
        {%- do table[kind].setdefault(row.column_name | lower, []).append(row) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(found.values() | list) }}
{% endmacro %}
