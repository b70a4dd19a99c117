"""Start the identity provider: `python -m tests.idp.serve SETUP_JSON`. It makes its database, its signing key,
one client and the users SETUP_JSON names, then serves on 127.0.0.1 and prints its address on one line."""
import io
import json
import os
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

os.environ["DJANGO_SETTINGS_MODULE"] = "tests.idp.settings"


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main() -> None:
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from oidc_provider.models import Client, ResponseType

    setup = json.loads(sys.argv[1])
    call_command("migrate", verbosity=0)
    call_command("creatersakey", stdout=io.StringIO())  # it announces its key: stdout carries the address only
    client = Client.objects.create(name="Concord", client_id=setup["client_id"],
                                   client_secret=setup["client_secret"], client_type="confidential",
                                   require_consent=False, reuse_consent=True, jwt_alg="RS256")
    client.redirect_uris = setup["redirect_uris"]
    client.scope = ["openid", "profile", "email"]
    client.save()
    client.response_types.add(ResponseType.objects.get_or_create(value="code")[0])
    for person in setup["users"]:
        user = User.objects.create_user(person["username"], person.get("email", ""), person["password"],
                                        first_name=person.get("first_name", ""))
        for name in person.get("groups", []):
            user.groups.add(Group.objects.get_or_create(name=name)[0])
    server = make_server("127.0.0.1", 0, get_wsgi_application(), server_class=Server, handler_class=Quiet)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
