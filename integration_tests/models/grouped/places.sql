{#- Correlated columns for column groups: a zip code determines its city, a status its flag. 20,000
    rows, 2,000 zip codes in 100 cities, 5 statuses; a few rows with no zip. Its post-hook (the
    folder's) finds the groups in the models that read it (column_groups: auto, the default). -#}
select cast(id as int) as place_id,
       if(id % 97 = 0, null, concat('z', cast(id % 2000 as string))) as zip,
       concat('city', cast(id % 2000 % 100 as string)) as city,
       concat('s', cast(id % 5 as string)) as status,
       id % 5 < 2 as flag,
       cast(id % 1000 as int) as amount
from range(20000)
