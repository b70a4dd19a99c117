def with_groups(id_token, user, token, request, **kwargs):
    id_token["groups"] = sorted(user.groups.values_list("name", flat=True))
    id_token["preferred_username"] = user.username
    return id_token


def userinfo(claims, user):
    claims["preferred_username"] = user.username
    claims["email"] = user.email
    claims["name"] = user.get_full_name()
    return claims
