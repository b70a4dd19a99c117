"""Signing in with a Gitee account: an OAuth 2 provider for django-allauth, which ships none for Gitee. Its
addresses come from GITEE_URL (https://gitee.com by default), read at each sign-in."""
