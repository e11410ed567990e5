{#- Helpers for tests that drive dbt in a separate process. -#}
{% macro run_sql(sql) %}
  {%- for statement in ([sql] if sql is string else sql) -%}{%- do run_query(statement) -%}{%- endfor -%}
{% endmacro %}

{#- Several steps in one dbt process, in order (each dbt process starts its own JVM, the slow part):
    {sql: statement(s)}, {current: {schema, table}}, {column_stats: {schema, table, column}} (logged
    as COLUMN_STATS: JSON), {pause: text} (see below) or {<an operation of the package>: {its args}}
    such as {analyze_table: {relation: ..., columns: all}}. -#}
{% macro run_steps(steps) %}
  {%- for step in steps -%}
    {%- for kind, args in step.items() -%}
      {%- if kind == 'sql' -%}{%- do run_sql(args) -%}
      {%- elif kind == 'current' -%}{%- do print_current_statistics(**args) -%}
      {%- elif kind == 'column_stats' -%}
        {%- set stats = {} -%}
        {%- for name, value in dbt_analyze.get_column_stats(api.Relation.create(schema=args.schema, identifier=args.table), args.column).items() -%}
          {%- do stats.update({name: value | string}) -%}
        {%- endfor -%}
        {{ log('COLUMN_STATS:' ~ tojson(stats), info=True) }}
      {%- elif kind == 'pause' -%}
        {#- The text, then a line longer than a pipe holds (64 KiB): a test that reads the output
            and stops reading at the text holds this process, blocked on that line, until it reads
            on (conftest.dbt_process with pause_on); the process keeps its connection meanwhile. -#}
        {{ log(args, info=True) }}
        {{ log('pause: ' ~ '.' * 1048576, info=True) }}
      {%- elif kind in dbt_analyze and not kind.startswith('_') -%}{%- do dbt_analyze[kind](**args) -%}
      {%- else -%}{%- do exceptions.raise_compiler_error('run_steps: unknown step ' ~ kind) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}

{#- Logs the current statistics of a table as one JSON line starting with CURRENT: -#}
{% macro print_current_statistics(schema, table) %}
  {%- set where = " where table_schema = '" ~ schema ~ "' and table_name = '" ~ table ~ "'" -%}
  {%- set result = {} -%}
  {%- for name in ['table_statistics', 'column_statistics', 'column_quantiles', 'column_histograms', 'column_top_values', 'analyze_runs'] -%}
    {%- set rows = run_query('select * from ' ~ dbt_analyze._storage_relation(name) ~ where ~ ' order by all') -%}
    {%- set listed = [] -%}
    {%- for row in rows -%}
      {%- set item = {} -%}
      {%- for column in rows.column_names if column not in ('collected_at', 'run_id', 'state_run_id') or name == 'analyze_runs' -%}
        {%- do item.update({column: row[column] | string}) -%}
      {%- endfor -%}
      {%- do listed.append(item) -%}
    {%- endfor -%}
    {%- do result.update({name: listed}) -%}
  {%- endfor -%}
  {{ log('CURRENT:' ~ tojson(result), info=True) }}
{% endmacro %}

{#- Parses each statement with the package's parser and logs the results as one JSON line
    starting with PARSED: (a request or {'error': ...} per statement). -#}
{% macro parse_statements(statements) %}
  {%- set results = [] -%}
  {%- for statement in statements -%}
    {%- set parsed = dbt_analyze._parse_statement(statement) -%}
    {%- if parsed.error -%}
      {%- do results.append({'error': parsed.error}) -%}
    {%- elif 'tables_in' in parsed -%}
      {%- do results.append({'tables_in': parsed.tables_in, 'columns': parsed.columns, 'noscan': parsed.noscan}) -%}
    {%- else -%}
      {%- do results.append({'schema': parsed.schema, 'identifier': parsed.identifier, 'relation': parsed.relation,
                             'partition': parsed.partition, 'columns': parsed.columns, 'noscan': parsed.noscan}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ log('PARSED:' ~ tojson(results), info=True) }}
{% endmacro %}

{#- The engine fit with a given list of sketch functions (an older engine simulated), and the
    functions this engine really has. -#}
{% macro fit_to_engine_with(available) %}
  {%- set run = dict(dbt_analyze._new_run({}), dry_run=true) -%}
  {%- set request = dbt_analyze._fit_to_engine({'sketches': 'full'}, run, available) -%}
  {{ log('FIT: ' ~ request.sketches, info=True) }}
  {{ log('DETECTED: ' ~ tojson(dbt_analyze._engine_sketch_functions()), info=True) }}
{% endmacro %}

{#- The package's runner of independent statements, as a merge and a plan use it; logs their rows. -#}
{% macro run_independent(statements) %}
  {%- set rows = [] -%}
  {%- for result in dbt_analyze._run_at_once(statements) -%}
    {%- do rows.append(result | map('list') | list) -%}
  {%- endfor -%}
  {{ log('ROWS: ' ~ tojson(rows), info=True) }}
{% endmacro %}

{#- The macros' facts of each type name (test_type_facts.py), logged as TYPE_FACTS: JSON. -#}
{% macro print_type_facts(types) %}
  {%- set facts = {} -%}
  {%- for data_type in types -%}
    {%- do facts.update({data_type: [dbt_analyze._type_category(data_type), dbt_analyze._default_size(data_type)]}) -%}
  {%- endfor -%}
  {{ log('TYPE_FACTS: ' ~ tojson(facts), info=True) }}
{% endmacro %}

{#- A run's file listing of `branches` ({location, depth, spec, table_index}) by Python and by Spark's
    binaryFile query (test_incremental.py), logged as LISTINGS: JSON. -#}
{% macro print_listings(branches) %}
  {%- set built = [] -%}
  {%- for branch in branches -%}
    {%- do built.append(dbt_analyze._listing_branch(branch.get('table_index', 0), branch.location, 'listed',
                                                    depth=branch.get('depth', 0), spec=branch.get('spec'))) -%}
  {%- endfor -%}
  {%- set by_spark = dbt_analyze._run_at_once([dbt_analyze._listing_sql(built)], missing_paths=true,
                                              settings=[dbt_analyze._listing_settings(built)])[0] -%}
  {{ log('LISTINGS: ' ~ tojson({'python': adapter.dbt_analyze_list_files(built) | map('list') | list,
                                'spark': by_spark | map('list') | list}), info=True) }}
{% endmacro %}
