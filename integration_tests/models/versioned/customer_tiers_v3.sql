select 3 as tier_version, id from range(3)
