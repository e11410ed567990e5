{#-
  One request dict from either form of arguments:
    statement: "ANALYZE TABLE ..." | "ANALYZE TABLES IN db ..."   (parsed by _parse_analyze_statement)
    relation: db.t | model/seed/source name | Relation   partition: {k: v|null}   columns: [..]|all
    schema: db (every table of it, as ANALYZE TABLES IN db)   columns: all
    noscan, full, dry_run, sketches (full|basic), sample, publish, top_k_tracked (items a top-k
    sketch tracks in this run; default: _choose_scan's), sample_sketches (whether the KLL and top-k
    sketches of a large table may see a sample of its rows: _sketch_rate), column_groups (lists
    of two or more columns whose distinct combinations the run counts: _plan_column_groups)
  Options given next to a statement (full, dry_run, sketches, ...) apply to it as well. A request for a
  schema's tables has `tables_in` (the schema; none: the target's).
-#}
{% macro _build_request(args, run=none) %}
  {%- do dbt_analyze._check_settings(run) -%}
  {%- set known = ['statement', 'relation', 'schema', 'partition', 'columns', 'noscan', 'full', 'dry_run', 'sketches',
                   'sample', 'publish', 'top_k_tracked', 'sample_sketches', 'column_groups'] -%}
  {%- for key in args if key not in known -%}
    {{ dbt_analyze._fail(run, "unknown option '" ~ key ~ "' (known: " ~ known | join(', ') ~ ")") }}
  {%- endfor -%}

  {%- if args.get('statement') -%}
    {%- for key in ['relation', 'schema', 'partition', 'columns', 'noscan'] if args.get(key) is not none -%}
      {{ dbt_analyze._fail(run, "give either 'statement' or '" ~ key ~ "', not both") }}
    {%- endfor -%}
    {%- set request = dbt_analyze._parse_analyze_statement(args['statement'], run) -%}
  {%- elif args.get('schema') is not none -%}
    {%- for key in ['relation', 'partition'] if args.get(key) is not none -%}
      {{ dbt_analyze._fail(run, "give either 'schema' (every table of it) or '" ~ key ~ "', not both") }}
    {%- endfor -%}
    {%- set columns = args.get('columns') -%}
    {%- if columns is not none and not (columns is string and columns | lower == 'all') -%}
      {{ dbt_analyze._fail(run, "'columns' with 'schema' can only be all: named columns belong to one table") }}
    {%- endif -%}
    {%- set request = {'tables_in': args['schema'], 'relation': none, 'partition': none,
                       'columns': 'all' if columns else none,
                       'noscan': dbt_analyze._as_bool(args.get('noscan', false))} -%}
  {%- elif args.get('relation') is not none -%}
    {%- set relation = args['relation'] -%}
    {%- if relation is string -%}
      {%- set parts = relation.split('.') -%}
      {#- Spark 4 names tables catalog.schema.name too; as in a statement, only its session catalog. -#}
      {%- set catalog_error = dbt_analyze._unsupported_catalog(parts, 3) -%}
      {%- if catalog_error -%}{{ dbt_analyze._fail(run, catalog_error) }}{%- endif -%}
      {%- set parts = parts[1:] if parts | length == 3 else parts -%}
      {%- if parts | length > 2 or '' in parts -%}
        {{ dbt_analyze._fail(run, "relation '" ~ relation
                             ~ "' must be a name, schema.name or spark_catalog.schema.name") }}
      {%- endif -%}
      {%- set request = {'relation': relation if parts | length == 1 else none,
                         'schema': parts[0] if parts | length == 2 else none, 'identifier': parts[-1]} -%}
    {%- else -%}
      {%- set request = {'relation': none, 'schema': relation.schema, 'identifier': relation.identifier} -%}
    {%- endif -%}
    {%- set partition = args.get('partition') -%}
    {%- if partition is not none and partition is not mapping -%}
      {{ dbt_analyze._fail(run, "'partition' must be a mapping like {k1: v1, k2: null}, got " ~ partition) }}
    {%- endif -%}
    {%- set partition = dbt_analyze._yaml_scalars(partition) -%}
    {%- set columns = args.get('columns') -%}
    {%- if columns is string and columns | lower == 'all' -%}
      {%- set columns = 'all' -%}
    {%- elif columns is string -%}
      {%- set columns = [columns] -%}
    {%- elif columns is not none and (columns is mapping or columns is not iterable) -%}
      {{ dbt_analyze._fail(run, "'columns' must be a list of names or 'all'") }}
    {%- endif -%}
    {%- do request.update({'partition': partition or none, 'columns': columns or none,
                           'noscan': dbt_analyze._as_bool(args.get('noscan', false))}) -%}
  {%- else -%}
    {{ dbt_analyze._fail(run,
                         "say what to analyze: 'statement: ANALYZE TABLE ...', 'relation: <table>' or 'schema: <schema>'") }}
  {%- endif -%}

  {%- set sketches = args.get('sketches') or dbt_analyze._var('dbt_analyze_sketches') -%}
  {%- if sketches not in ('full', 'basic') -%}
    {{ dbt_analyze._fail(run, "'sketches' must be full or basic, got '" ~ sketches ~ "'") }}
  {%- endif -%}
  {%- do request.update({'full': dbt_analyze._as_bool(args.get('full') if args.get('full') is not none
                                                      else dbt_analyze._var('dbt_analyze_full')),
                         'dry_run': dbt_analyze._as_bool(args.get('dry_run', false)), 'sketches': sketches,
                         'publish': dbt_analyze._as_bool(args.get('publish') if args.get('publish') is not none
                                                         else dbt_analyze._var('dbt_analyze_publish')),
                         'sample_sketches': dbt_analyze._as_bool(args.get('sample_sketches')
                                                                 if args.get('sample_sketches') is not none
                                                                 else dbt_analyze._var('dbt_analyze_sample_sketches'))}) -%}
  {%- set sample = args.get('sample') -%}
  {%- if sample is not none -%}
    {%- if sample is not mapping or (sample.keys() | list) not in (['percent'], ['rows']) -%}
      {{ dbt_analyze._fail(run, "'sample' must be {percent: P} (0 < P <= 100) or {rows: N} (rows per partition), got "
                           ~ sample) }}
    {%- elif 'percent' in sample and not (sample.percent is number and 0 < sample.percent <= 100) -%}
      {{ dbt_analyze._fail(run, "sample percent must be a number in (0, 100], got " ~ sample.percent) }}
    {%- elif 'rows' in sample and not (sample.rows is number and sample.rows >= 1) -%}
      {{ dbt_analyze._fail(run, "sample rows must be a positive number, got " ~ sample.rows) }}
    {%- endif -%}
  {%- endif -%}
  {%- do request.update({'sample': sample, 'top_k_tracked': dbt_analyze._top_k_tracked_option(args, run),
                         'column_groups': dbt_analyze._column_groups_option(args, run)}) -%}
  {%- if request.column_groups and request.column_groups != 'auto' and request.get('tables_in') is not none -%}
    {{ dbt_analyze._fail(run, "'column_groups' with 'schema' cannot apply: a group names columns of one table") }}
  {%- endif -%}
  {%- if request['noscan'] and request.column_groups == 'auto' -%}
    {%- do request.update({'column_groups': []}) -%}
  {%- elif request['noscan'] and request.column_groups -%}
    {{ dbt_analyze._fail(run, "NOSCAN collects size and file count only; it cannot be combined with column groups") }}
  {%- endif -%}
  {%- if request['noscan'] and request['columns'] -%}
    {{ dbt_analyze._fail(run,
                         "NOSCAN collects size and file count only; it cannot be combined with column statistics") }}
  {%- endif -%}
  {#- From here on a refusal is the run's, recorded where the storage exists (_fail). -#}
  {%- if run is not none -%}{%- do run.update({'request_checked': true}) -%}{%- endif -%}
  {{ return(request) }}
{% endmacro %}

{#- The items a request asks its top-k sketches to track (top_k_tracked), checked; none when it does
    not say (_choose_scan decides). -#}
{% macro _top_k_tracked_option(args, run) %}
  {%- set value = args.get('top_k_tracked') -%}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {%- set text = value | string | trim -%}
  {%- if not text.isdigit() or not (1 <= text | int <= 1000000) -%}
    {{ dbt_analyze._fail(run, "'top_k_tracked' (items a top-k sketch tracks) must be an integer from 1 to 1000000, got '"
                         ~ value ~ "'") }}
  {%- endif -%}
  {%- do dbt_analyze._check_top_k_fits(text | int, "'top_k_tracked'", run) -%}
  {{ return(text | int) }}
{% endmacro %}

{#- The column groups a request asks for (column_groups: [[a, b], [c, d, e]]), as lists of names;
    [] when it asks for none; 'auto' for those the dbt graph's models use (_auto_column_groups).
    Whether the names are the table's columns is the plan's to check. -#}
{% macro _column_groups_option(args, run) %}
  {%- set groups = args.get('column_groups') -%}
  {%- if groups is none -%}{{ return([]) }}{%- endif -%}
  {%- if groups is string and groups | lower == 'auto' -%}{{ return('auto') }}{%- endif -%}
  {%- if groups is string or groups is mapping or groups is not iterable -%}
    {{ dbt_analyze._fail(run, "'column_groups' must be auto or a list of column lists like [[a, b], [c, d, e]], got '"
                         ~ groups ~ "'") }}
  {%- endif -%}
  {%- set checked = [] -%}
  {%- for group in groups -%}
    {%- if group is string or group is mapping or group is not iterable
          or (group | reject('string') | list | length) > 0 -%}
      {{ dbt_analyze._fail(run, "a column group must be a list of column names, got '" ~ group ~ "'") }}
    {%- endif -%}
    {%- if group | map('lower') | unique | list | length < 2 -%}
      {{ dbt_analyze._fail(run, "column group " ~ group | list ~ " has fewer than two columns: a single column's"
                           ~ " distinct values are its own statistics") }}
    {%- endif -%}
    {%- do checked.append(group | list) -%}
  {%- endfor -%}
  {{ return(checked) }}
{% endmacro %}

{#- A YAML date or timestamp (`partition: {d: 2024-01-02}` in --args or a model's config) as its
    text, which Spark casts back to the value, also as a mapping's value; any other value as it is. -#}
{% macro _yaml_scalars(value) %}
  {%- if value is mapping -%}
    {%- set plain = {} -%}
    {%- for key, item in value.items() -%}{%- do plain.update({key: dbt_analyze._yaml_scalars(item)}) -%}{%- endfor -%}
    {{ return(plain) }}
  {%- endif -%}
  {{ return(value | string if value.isoformat is defined else value) }}
{% endmacro %}

{% macro _as_bool(value) %}
  {%- if value is string -%}
    {{ return(value | lower in ('true', 'yes', '1', 'on')) }}
  {%- endif -%}
  {{ return(value is not none and value != false and value != 0) }}
{% endmacro %}
