"""A real OpenID Connect identity provider for the sign-in tests: a small Django project of its own with
django-oidc-provider, started on 127.0.0.1 in a process of its own (`serve`)."""
