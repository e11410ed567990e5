def model(dbt, session):
    if True:
        raise ValueError('this model is broken on purpose')
    return session.range(1)
