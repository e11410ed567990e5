select 1 as tier_version, id from range(3)
