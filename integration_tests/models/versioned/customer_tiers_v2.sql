select 2 as tier_version, id from range(3)
