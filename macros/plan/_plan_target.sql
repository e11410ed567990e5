{#-
  The plan of one request: which table, which of its partitions, which columns, and which of the
  selected partitions must be scanned (new or changed since their state was taken, by the file
  listing; everything with full=true). Everything is validated here, before anything is written.
  With list_files the plan lists the table's files itself; else the caller that needs them lists
  them (with the states, and of many tables at once: _read_listings_and_states) and sets plan.listing.
-#}
{% macro _plan_target(request, run=none, list_files=false) %}
  {%- set table = dbt_analyze._describe_table(request, run) -%}
  {%- set plan = {'table': table, 'request': request} -%}

  {#- Columns: the requested ones, checked against the catalog (names are case-insensitive). -#}
  {%- set by_name = {} -%}
  {%- for column in table.data_columns -%}{%- do by_name.update({column.name | lower: column}) -%}{%- endfor -%}
  {%- set columns = [] -%}
  {%- if request.columns == 'all' -%}
    {%- set columns = table.data_columns -%}
  {%- elif request.columns -%}
    {%- for name in request.columns -%}
      {%- if (name | lower) in table.partition_columns | map('lower') | list -%}
        {{ dbt_analyze._fail(run, "'" ~ name ~ "' is a partition column of " ~ table.schema ~ "." ~ table.identifier
                             ~ "; its values are the partition specs") }}
      {%- elif (name | lower) not in by_name -%}
        {{ dbt_analyze._fail(run, "unknown column '" ~ name ~ "' in " ~ table.schema ~ "." ~ table.identifier
                             ~ " (columns: " ~ table.data_columns | map(attribute='name') | join(', ') ~ ")") }}
      {%- endif -%}
      {%- if by_name[name | lower] not in columns -%}{%- do columns.append(by_name[name | lower]) -%}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- do plan.update({'columns': columns,
                      'column_groups': dbt_analyze._plan_column_groups(table,
                          dbt_analyze._auto_column_groups(table, run) if request.get('column_groups') == 'auto'
                          else request.get('column_groups') or [], run)}) -%}

  {#- Partitions: every partition of the catalog, those the spec selects, and the file listing. -#}
  {%- set request_partition = request.partition or {} -%}
  {%- if request_partition and not table.partition_columns -%}
    {{ dbt_analyze._fail(run, "" ~ table.schema ~ "." ~ table.identifier
                         ~ " is not partitioned; a PARTITION spec cannot apply to it") }}
  {%- endif -%}
  {%- set wanted = {} -%}
  {%- for key, value in request_partition.items() -%}
    {%- if (key | lower) not in table.partition_columns | map('lower') | list -%}
      {{ dbt_analyze._fail(run, "unknown partition column '" ~ key ~ "' in " ~ table.schema ~ "." ~ table.identifier
                           ~ " (partitioned by " ~ table.partition_columns | join(', ') ~ ")") }}
    {%- endif -%}
    {%- if value is not none -%}
      {%- do wanted.update({key | lower: dbt_analyze._escape_partition_value(value)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do wanted.update(dbt_analyze._typed_partition_values(table, request_partition, run)) -%}

  {%- set all_specs = dbt_analyze._list_partitions(table) -%}
  {%- set selected = [] if wanted else all_specs | list -%}
  {#- Without values to match, every partition is selected: no spec is split (thousands, each a macro call). -#}
  {%- for spec in all_specs if wanted -%}
    {%- set values = dbt_analyze._split_partition_spec(spec) -%}
    {%- set st = namespace(match=true) -%}
    {%- for key, value in wanted.items() if values.get(key) != value -%}{%- set st.match = false -%}{%- endfor -%}
    {%- if st.match -%}{%- do selected.append(spec) -%}{%- endif -%}
  {%- endfor -%}
  {%- if request_partition and not selected -%}
    {{ dbt_analyze._fail(run, "no partition of " ~ table.schema ~ "." ~ table.identifier ~ " matches "
                         ~ request_partition ~ (" (partitions: " ~ all_specs[:10] | join(', ')
                                                ~ (', ...' if all_specs | length > 10 else '') ~ ")" if all_specs
                                                else " (the table has no partitions)")) }}
  {%- endif -%}
  {%- do plan.update({'all_partitions': all_specs, 'selected_partitions': selected,
                      'listing': dbt_analyze._list_files(table, all_specs) if list_files else {},
                      'sample': none, 'exact_rows': none, 'singletons': none, 'sketch_rate': none}) -%}
  {{ return(plan) }}
{% endmacro %}

{#- Values given for partition columns of other types than strings, as Spark matches them: as
    values of the type, rendered as SHOW PARTITIONS prints them (n: '01' is n=1, d: 2024-1-2 is
    d=2024-01-02, flag: True is flag=true); one that is not a value of the type is refused. One query
    for all of them, none when there are none. -#}
{% macro _typed_partition_values(table, request_partition, run) %}
  {%- set typed = [] -%}
  {%- for key, value in request_partition.items()
      if value is not none and (value | string) not in ('', '__HIVE_DEFAULT_PARTITION__') -%}
    {%- for column in table.columns if column.name | lower == key | lower
        and dbt_analyze._type_category(column.data_type) != 'string' -%}
      {%- do typed.append({'key': key, 'value': value | string, 'data_type': column.data_type}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if not typed -%}{{ return({}) }}{%- endif -%}
  {%- set casts = [] -%}
  {%- for given in typed -%}
    {%- do casts.append(dbt_analyze._as_type_sql(given.value, given.data_type)) -%}
  {%- endfor -%}
  {%- set rendered = run_query('select ' ~ casts | join(', ')).rows[0] -%}
  {%- set values = {} -%}
  {%- for given in typed -%}
    {%- if rendered[loop.index0] is none -%}
      {{ dbt_analyze._fail(run, "partition value '" ~ given.value ~ "' is not a value of partition column '" ~ given.key
                           ~ "' (" ~ given.data_type ~ ") of "
                                ~ table.schema ~ "." ~ table.identifier) }}
    {%- endif -%}
    {%- do values.update({given.key | lower: dbt_analyze._escape_partition_value(rendered[loop.index0])}) -%}
  {%- endfor -%}
  {{ return(values) }}
{% endmacro %}

{#- Every partition of the table as a spec; [''] for an unpartitioned table. -#}
{% macro _list_partitions(table) %}
  {%- if not table.partition_columns -%}
    {{ return(['']) }}
  {%- endif -%}
  {%- set rows = run_query('show partitions ' ~ table.quoted) -%}
  {{ return(rows.columns[0].values() | list) }}
{% endmacro %}

{#- File count, size and newest modification time per partition, from the file listing of the
    table's location (the binaryFile source lists files and reads none of them), and of the
    locations of partitions kept elsewhere. -#}
{% macro _list_files(table, partition_specs) %}
  {%- set listings = dbt_analyze._parse_listings([table],
                                                 dbt_analyze._run_listing(dbt_analyze._listing_branches([table]))[0]) -%}
  {%- do dbt_analyze._fit_listings_to_partitions([table], [partition_specs], listings) -%}
  {{ return(listings[0]) }}
{% endmacro %}

{#- The listing branches of many tables, for one query (one Spark job): one per table with a location. -#}
{% macro _listing_branches(tables) %}
  {%- set branches = [] -%}
  {%- for table in tables -%}
    {%- if table.location -%}
      {%- do branches.append(dbt_analyze._listing_branch(loop.index0, table.location,
                                                         table.schema ~ '.' ~ table.identifier,
                                                         depth=table.partition_columns | length)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(branches) }}
{% endmacro %}

{#- One location's files as (table_index, partition_spec, length, modificationTime), and what
    names the location: {sql, path, location, label, and for dbt_analyze_list_files table_index,
    depth, spec}. Without partition discovery, which a directory that is no partition's (say, a
    partition kept under another name) would make fail; the spec comes from the path's last
    `depth` directories, or is `spec`. The source reads its path as a glob, so the glob's
    characters in a location (say, a schema's at /data/{raw}) are escaped. -#}
{% macro _listing_branch(table_index, location, label, depth=0, spec=none) %}
  {%- set path = namespace(text=location) -%}
  {%- for char in '\\{}[]*?' -%}{%- set path.text = path.text | replace(char, '\\' ~ char) -%}{%- endfor -%}
  {%- set spec_sql = dbt_analyze._quote_literal(spec) if spec is not none
                     else "regexp_replace(regexp_extract(path, '([^/]+/){" ~ depth ~ "}[^/]+$', 0), '/[^/]+$', '')"
                          if depth else "''" -%}
  {{ return({'path': path.text, 'location': location, 'label': label, 'table_index': table_index, 'depth': depth,
             'spec': spec,
             'sql': 'select ' ~ table_index ~ ' as table_index, ' ~ spec_sql
             ~ ' as partition_spec, length, modificationTime from binaryFile.'
                    ~ dbt_analyze._quote_identifier(path.text) ~ " with ('recursiveFileLookup' = 'true')"}) }}
{% endmacro %}

{#- The newest modification as an instant (_timestamp_state_sql): a fingerprint that reads the
    same under every session time zone (as text in the zone, a changed zone made every partition stale). -#}
{% macro _listing_sql(branches) %}
  {{ return('select table_index, partition_spec, count(*) as file_count, sum(length) as size_bytes, '
            ~ dbt_analyze._timestamp_state_sql('max(modificationTime)') ~ ' as modified_at from ('
            ~ branches | map(attribute='sql') | join(' union all ') ~ ') group by 1, 2' if branches else none) }}
{% endmacro %}

{#- The listing of branches, with other statements at the same time (_run_at_once): the
    listing's rows first, then each other statement's. On a session whose tables are local
    directories, Python lists them (dbt_analyze_list_files) by the same rules, with no Spark job;
    elsewhere a query lists them. Spark reads a table or partition whose directory is gone as
    empty, but its binaryFile source stops at the missing path: that location's branch is left
    out (no files, as Spark sees it) and the rest listed again. -#}
{% macro _run_listing(branches, others=[]) %}
  {%- set listed = adapter.dbt_analyze_list_files(branches)
                   if branches and adapter.dbt_analyze_list_files is defined else none -%}
  {%- if listed is not none -%}
    {{ return([listed] + dbt_analyze._run_at_once(others)) }}
  {%- endif -%}
  {%- set listing_sql = dbt_analyze._listing_sql(branches) -%}
  {%- set settings = dbt_analyze._listing_settings(branches) -%}
  {%- set results = dbt_analyze._run_at_once(([listing_sql] if listing_sql else []) + others, missing_paths=true,
                                                 settings=[settings] if listing_sql else []) -%}
  {%- set st = namespace(branches=branches, listing=results[0] if listing_sql else []) -%}
  {%- for attempt in range(branches | length) if st.listing is mapping -%}
    {%- set missing = st.listing.missing_path -%}
    {#- Spark names the path as the query gave it, qualified (file:/...) when it came without a scheme. -#}
    {%- set gone = st.branches | selectattr('path', 'in', [missing, modules.re.sub('^file:', '', missing)]) | list -%}
    {%- if not gone -%}
      {{ exceptions.raise_compiler_error('dbt_analyze: the file listing stops at ' ~ missing
                                         ~ ', which does not exist and is no listed location') }}
    {%- endif -%}
    {{ log('dbt_analyze: ' ~ gone[0].label ~ ': its location ' ~ gone[0].location
           ~ ' does not exist; listed as holding no files (Spark reads it as empty)', info=True) }}
    {%- set st.branches = st.branches | reject('in', gone) | list -%}
    {%- set relisting_sql = dbt_analyze._listing_sql(st.branches) -%}
    {%- set st.listing = dbt_analyze._run_at_once([relisting_sql], missing_paths=true, settings=[settings])[0]
                         if relisting_sql else [] -%}
  {%- endfor -%}
  {{ return([st.listing] + (results[1:] if listing_sql else results)) }}
{% endmacro %}

{#- Spark's settings for a listing. Its reader opens no file, so the files are split into as many
    tasks as Spark has cores (by default, a task per 32 small files or per 128 MB: 126 tasks for
    2,000 partitions' files, or 8,000 for a terabyte); and a local directory's subdirectories are
    listed by the driver, where Spark would list more than 32 in a job of a task each
    (docs/decisions/file-listing-by-python.md). An object store keeps that job. -#}
{% macro _listing_settings(branches) %}
  {%- set settings = {'spark.sql.files.maxPartitionBytes': 1125899906842624} -%}
  {%- set local = namespace(all=branches | length > 0) -%}
  {%- for branch in branches if not branch.location.startswith('file:') -%}{%- set local.all = false -%}{%- endfor -%}
  {%- if local.all -%}
    {%- do settings.update({'spark.sql.sources.parallelPartitionDiscovery.threshold': 2147483647}) -%}
  {%- endif -%}
  {{ return(settings) }}
{% endmacro %}

{#- Fits each partitioned table's listing to the partitions of its catalog. Files in a directory
    that is no partition's are left out, as Spark's ANALYZE leaves them out of the size. A partition
    can be kept outside its table's directory (ALTER TABLE ... ADD PARTITION ... LOCATION), where
    the table's listing cannot see a change: each partition the listing found no file for is asked
    for its location (all at once), and those kept elsewhere are listed there (one query); one in
    its default directory is empty. Updates listings (one per table) in place. -#}
{% macro _fit_listings_to_partitions(tables, partition_specs, listings) %}
  {%- set unlisted = [] -%}
  {%- for index in range(tables | length) if tables[index].partition_columns and tables[index].location -%}
    {%- set in_catalog = dbt_analyze._spec_set(partition_specs[index]) -%}
    {%- for spec in listings[index].keys() | list if spec not in in_catalog -%}
      {%- do listings[index].pop(spec) -%}
    {%- endfor -%}
    {%- for spec in partition_specs[index] if spec not in listings[index] -%}
      {%- do unlisted.append({'index': index, 'spec': spec}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if not unlisted -%}{{ return(none) }}{%- endif -%}
  {%- set describes = [] -%}
  {%- for partition in unlisted -%}
    {%- do describes.append('describe formatted ' ~ tables[partition.index].quoted ~ ' partition ('
                            ~ dbt_analyze._partition_clause_sql(tables[partition.index], partition.spec) ~ ')') -%}
  {%- endfor -%}
  {%- set branches = [] -%}
  {%- for rows in dbt_analyze._run_at_once(describes) -%}
    {%- set partition = unlisted[loop.index0] -%}
    {%- set table = tables[partition.index] -%}
    {#- The first Location is the partition's (the table's follows under Storage Information). -#}
    {%- set location = (rows | selectattr(0, 'equalto', 'Location') | map(attribute=1) | first | default('', true))
                       | trim -%}
    {%- if location and location.rstrip('/') != table.location.rstrip('/') ~ '/' ~ partition.spec -%}
      {%- do branches.append(dbt_analyze._listing_branch(partition.index, location,
                                                         table.schema ~ '.' ~ table.identifier ~ ' partition '
                                                         ~ partition.spec, spec=partition.spec)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for relocated in dbt_analyze._parse_listings(tables, dbt_analyze._run_listing(branches)[0]) -%}
    {%- do listings[loop.index0].update(relocated) -%}
  {%- endfor -%}
{% endmacro %}

{#- Its rows as [{spec: {file_count, size_bytes, modified_at}}], one per table. -#}
{% macro _parse_listings(tables, rows) %}
  {%- set listings = [] -%}
  {%- for table in tables -%}{%- do listings.append({}) -%}{%- endfor -%}
  {%- for row in rows -%}
    {%- do listings[row[0] | int].update({row[1]: {'file_count': row[2] | int, 'size_bytes': row[3] | int,
                                                   'modified_at': row[4]}}) -%}
  {%- endfor -%}
  {{ return(listings) }}
{% endmacro %}
