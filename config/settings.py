"""Concord settings: every variable is read once, here, from the environment.

Defaults give the zero-set-up developer run (SQLite, tasks in-process); production
differences come only from the environment (see .env.example).
"""
from __future__ import annotations

import datetime
import ipaddress
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
# Where an installation keeps what it writes (the SQLite database, var/ with the folder broker, the shared cache and
# the demo passwords, media/, staticfiles/): the checkout itself for `make run`; the installed `concord` command
# sets CONCORD_HOME to the user's data folder, since the package's own folder is no place to write.
DATA_DIR = Path(os.environ.get("CONCORD_HOME") or BASE_DIR)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def env_secret(name: str, default: str = "") -> str:
    # Docker/Kubernetes secrets arrive as files: NAME_FILE wins over NAME.
    path = os.environ.get(f"{name}_FILE")
    if path:
        return Path(path).read_text(encoding="utf-8").strip()
    return os.environ.get(name, default)


# Core
DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_secret("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG=0.")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-" + "x" * 20
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "simple_history",
    "axes",
    # Signing in through an institution (OpenID Connect), GitHub or Gitee: django-allauth's social accounts.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.socialaccount.providers.github",
    "accounts.gitee",
    "concord",
    "accounts",
    "ingest",
    "taxonomy",
    "annotation",
    "agreement",
    "interviews",
    "machines",
    "codebook",
    "findings",
    "corpus",
    "demo",
    "webhooks",
    "reminders",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Early, so that every response carries the policy, error pages and the lock-out page included.
    "csp.middleware.CSPMiddleware",
    # Inside the policy's middleware, so that what it adds is written into the policy.
    "annotation.signin.SigninFormAction",
    # Before anything reads the body (the CSRF check parses a whole upload).
    "concord.request_limits.RefuseOversizedBodies",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session (a visitor's choice lives in a cookie), before anything that writes text for people.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # After the CSRF check (a forged request learns nothing), before any view reads the form.
    "concord.request_limits.RefuseUnstorableInput",
    # A lost database connection is a 503 saying nothing was saved (its process_exception).
    "concord.server_errors.DatabaseConnectionLost",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A person's own language, chosen in the header, wins over the browser's Accept-Language.
    "accounts.language.PersonsLanguage",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout page.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Production serves collected static files itself (gunicorn, no separate web server needed).
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's templates are the concord app's, named first so that they override the other apps' (allauth's
        # sign-in pages among them), whatever the apps' order.
        "DIRS": [BASE_DIR / "concord" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "codebook.context_processors.pending_votes",
                "accounts.context_processors.unread_notices",
            ],
        },
    },
]

# Database
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'concord.sqlite3'}",
        # Keeping connections open spares every request a new PostgreSQL backend (a fork and a login),
        # which cost more than the labeling loop's queries themselves.
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters travel apart from the SQL: bulk writes of long issue bodies skip client-side quoting.
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = env_bool("DB_SERVER_SIDE_BINDING", True)
    if env_bool("DB_BEHIND_PGBOUNCER", False):
        # PgBouncer in transaction mode hands a server connection to another client between transactions: no
        # server-side cursor (it would outlive its transaction: exports then receive whole results) and no named
        # prepared statement (it lives in the server session). psycopg prepares none with a threshold of None.
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run` has a worker writing beside the server: write-ahead logging lets pages read while a job writes,
    # and a write waits for the other instead of failing at once with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", transaction_mode="IMMEDIATE",
        timeout=30)
# A PostgreSQL streaming replica for reads that may be a little stale (concord.replica): the agreement figures'
# inputs, exports, statistics. Every write, and every read of a person just after their own write, goes to the
# primary.
if os.environ.get("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = dj_database_url.parse(os.environ["DATABASE_REPLICA_URL"],
                                                 conn_max_age=env_int("DB_CONN_MAX_AGE", 60), conn_health_checks=True)
    DATABASES["replica"]["OPTIONS"] = dict(DATABASES["default"].get("OPTIONS", {}))
    DATABASES["replica"]["DISABLE_SERVER_SIDE_CURSORS"] = DATABASES["default"].get("DISABLE_SERVER_SIDE_CURSORS",
                                                                                   False)
    # A test run without a replica of its own reads its test database through this alias.
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["concord.replica.Router"]
    # After authentication (it names the person), so that a write's position is remembered for its author.
    MIDDLEWARE.insert(MIDDLEWARE.index("django.contrib.auth.middleware.AuthenticationMiddleware") + 1,
                      "concord.replica.RememberWrites")
# How long a worker waits for the replica to hold everything the primary has before it reads an older state.
REPLICA_WAIT_SECONDS = env_int("REPLICA_WAIT_SECONDS", 2)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Auth
# Django's four standard validators: a volunteer's password may not be their username, short, common or digits.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "annotation:study_list"
LOGOUT_REDIRECT_URL = "login"

# Guessing passwords: after AXES_FAILURE_LIMIT failed logins for one username from one address, that pair is
# locked out for a while (django-axes; the count lives in the database, so every process shares it).
# concord.auth.UserRowBackend is Django's ModelBackend with a cheaper read of the signed-in user.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "concord.auth.UserRowBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# Where the client's address comes from. Directly on the internet: REMOTE_ADDR (the default). Behind a TLS proxy
# every request arrives from the proxy's address, so one attacker would lock out everyone: name the header the
# proxy sets (CLIENT_IP_HEADER=HTTP_X_FORWARDED_FOR) and how many proxies stand in front (TRUSTED_PROXY_COUNT).
# Only the addresses those proxies appended are believed; what a client writes into the header itself is not.
CLIENT_IP_HEADER = os.environ.get("CLIENT_IP_HEADER", "")
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
if CLIENT_IP_HEADER and TRUSTED_PROXY_COUNT < 1:
    raise ImproperlyConfigured("CLIENT_IP_HEADER needs TRUSTED_PROXY_COUNT (how many proxies append to it).")
AXES_CLIENT_IP_CALLABLE = "concord.client_ip.client_ip"

# Single sign-on (django-allauth), each provider on when its client id is set: an institution's OpenID Connect
# provider (OIDC_SERVER_URL, its issuer), GitHub (GITHUB_URL for GitHub Enterprise) and Gitee (GITEE_URL).
SOCIALACCOUNT_PROVIDERS: dict = {}
OIDC_NAME = os.environ.get("OIDC_NAME", "")  # the institution, as its sign-in button names it
if os.environ.get("OIDC_CLIENT_ID"):
    SOCIALACCOUNT_PROVIDERS["openid_connect"] = {"APPS": [{
        "provider_id": "oidc", "name": OIDC_NAME or "OpenID Connect",
        "client_id": os.environ["OIDC_CLIENT_ID"], "secret": env_secret("OIDC_CLIENT_SECRET"),
        # PKCE's S256 challenge with every sign-in; the nonce is accounts.oidc's.
        "settings": {"server_url": os.environ.get("OIDC_SERVER_URL", ""), "scope": ["openid", "profile", "email"],
                     "oauth_pkce_enabled": True},
    }]}
if os.environ.get("GITHUB_CLIENT_ID"):
    SOCIALACCOUNT_PROVIDERS["github"] = {
        "APPS": [{"client_id": os.environ["GITHUB_CLIENT_ID"], "secret": env_secret("GITHUB_CLIENT_SECRET")}],
        **({"GITHUB_URL": os.environ["GITHUB_URL"]} if os.environ.get("GITHUB_URL") else {})}
if os.environ.get("GITEE_CLIENT_ID"):
    SOCIALACCOUNT_PROVIDERS["gitee"] = {
        "APPS": [{"client_id": os.environ["GITEE_CLIENT_ID"], "secret": env_secret("GITEE_CLIENT_SECRET")}],
        "GITEE_URL": os.environ.get("GITEE_URL") or "https://gitee.com"}
SOCIALACCOUNT_ADAPTER = "annotation.signin.SocialAdapter"
ACCOUNT_ADAPTER = "annotation.signin.AccountAdapter"
# A sign-in starts with a POST (a link cannot sign anyone in), makes the account at once, keeps no token and
# never joins an account to another by a matching e-mail address (a provider may not have checked it).
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_STORE_TOKENS = False
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
# The sign-up page after an invitation asks for a username only; an e-mail address is whatever the provider gave.
SOCIALACCOUNT_EMAIL_REQUIRED = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_LOGIN_METHODS = {"username"}
# allauth's social sign-up form needs an e-mail field; it is optional, filled with what the provider gave.
ACCOUNT_SIGNUP_FIELDS = ["username*", "email"]
# Which providers may make an account for someone with no invitation: by default the institution's only (anyone
# on GitHub or Gitee needs a study's invitation link first).
SSO_OPEN_SIGNUP = {p.strip() for p in os.environ.get("SSO_OPEN_SIGNUP", "oidc").split(",") if p.strip()}
# Roles from the identity provider's claims, at every sign-in: SSO_ROLE_CLAIM names the claim holding the
# person's groups; SSO_ADMIN_GROUPS the groups that make an admin; SSO_GROUP_ROLES "group:study id:role, …" the
# groups that make a member (annotator or lead) of a study.
SSO_ROLE_CLAIM = os.environ.get("SSO_ROLE_CLAIM", "groups")
SSO_ADMIN_GROUPS = {g.strip() for g in os.environ.get("SSO_ADMIN_GROUPS", "").split(",") if g.strip()}
SSO_GROUP_ROLES: list[tuple[str, int, str]] = []
for _entry in os.environ.get("SSO_GROUP_ROLES", "").split(","):
    if _entry.strip():
        try:
            _group, _study, _role = (part.strip() for part in _entry.rsplit(":", 2))
            if _role not in ("annotator", "lead"):
                raise ValueError(f"the role is {_role!r}, not annotator or lead")
            SSO_GROUP_ROLES.append((_group, int(_study), _role))
        except ValueError as _exc:
            raise ImproperlyConfigured(f"SSO_GROUP_ROLES: {_entry.strip()!r}: {_exc}") from None
AXES_USERNAME_CALLABLE = "accounts.lockout.attempted_username"

# Content-Security-Policy on every response (django-csp): scripts and styles from Concord's own origin only, so
# no inline script, inline handler or eval runs even if something slipped past the sanitiser. Images in issue
# bodies may come from any https host (screenshots of errors are common in bug reports).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:", "https:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "form-action": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Internationalisation
LANGUAGE_CODE = "en"
# Half of the study's world writes Chinese: every text for people goes through gettext, and the Simplified
# Chinese catalogue (concord/locale/zh_Hans) must translate every message (tests/test_translations.py).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "concord" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Static files
STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Security: on only when DEBUG is off, so `make run` works over plain http.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None

# Celery. With REDIS_URL, Redis carries the tasks and their results. Without it (`make run`, the zero-set-up
# default) the broker is a folder: kombu's filesystem transport needs no service, and `make run` starts a
# worker on it beside the server, so a long job never holds a request there either. CELERY_EAGER=1 runs each
# task inside the request that sends it instead (the tests do so, except those that start a worker).
REDIS_URL = os.environ.get("REDIS_URL", "")
# Where `load_demo` and `demo_passwords` keep the demo users' passwords (readable by their owner only).
DEMO_PASSWORDS_FILE = Path(os.environ.get("DEMO_PASSWORDS_FILE") or DATA_DIR / "var" / "demo-passwords.txt")
CELERY_BROKER_DIR = Path(os.environ.get("CELERY_BROKER_DIR") or DATA_DIR / "var" / "broker")
CELERY_BROKER_URL = REDIS_URL or "filesystem://"
CELERY_RESULT_BACKEND = REDIS_URL or None
# Every task keeps its outcome in a row of its own (a run, a batch, a snapshot), so none stores a result by
# default: sending a task then never touches the result store, which with Redis away retried for 19 s and
# failed the page. (A test or benchmark that waits for a result asks for one: apply_async(ignore_result=False).)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_EAGER", False)

if REDIS_URL:
    # A shared cache lets sessions be read without a database query on every request (the labeling page
    # is requested thousands of times a day per annotator). Only with a cache every process shares: a
    # per-process cache would keep a logged-out session alive in the other processes.
    # Redis may go away: django-redis then answers every read as a miss and drops writes (IGNORE_EXCEPTIONS)
    # within half a second, so sessions fall back to the database behind them (cached_db) and annotators keep
    # labeling; the API throttle counts, which live here too, fail open meanwhile (login lock-outs are kept in
    # the database).
    CACHES = {"default": {
        "BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "concord",
        "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
    }}
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    # Without Redis the cache is a folder that every process of the set-up shares (`make run`'s server and its
    # worker, `concord run`'s): what one process marks there — a computation under way, a throttle's count — the
    # others see, and the worker's "done" clears the server's "under way". Django's default, a cache in each
    # process's own memory, kept a computation "under way" in the server for its whole timeout after the worker
    # had finished it, and no new one was sent meanwhile (docs/decisions/shared-cache.md).
    CACHE_DIR = Path(os.environ.get("CACHE_DIR") or DATA_DIR / "var" / "cache")
    CACHES = {"default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(CACHE_DIR),
        # Past MAX_ENTRIES a third of the files are culled at random; a lab's keys stay well under this.
        "OPTIONS": {"MAX_ENTRIES": 20000},
    }}
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 30 * 60)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 35 * 60)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task is acknowledged when it has run, not when a worker takes it, and a worker that dies (killed, out of
# memory) gives it back: a killed import is retried by the next worker (imports are idempotent). With Redis a
# task taken by a worker that vanished whole comes back after the visibility timeout.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 2 * 60 * 60),
    # How often a worker looks for tasks held past the visibility timeout by a worker that vanished. kombu looks
    # every 10 s but scans only every 10th time, so a dead host's task came back up to 100 s late; one scan of
    # Redis's index of held tasks every this many seconds costs next to nothing.
    "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 10), "unacked_restore_throttle": 1,
    # A worker scans under a lock in Redis that lives this long if its holder dies while holding it (a host
    # killed mid-scan, likelier while a busy task holds the GIL): with kombu's 5 minutes, every takeover
    # would wait that long. A scan takes milliseconds.
    "unacked_mutex_expire": 30,
    # Sending a task from a page tries the broker once more, at once, then gives up (the page says the queue
    # is unavailable) rather than keeping the person waiting through kombu's default reconnects.
    "max_retries": 1, "interval_start": 0, "interval_step": 0.2,
}
if not REDIS_URL:
    # The folder broker: one file per task, read by the worker in order; taken tasks are not kept.
    (CELERY_BROKER_DIR / "queue").mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS |= {"data_folder_in": str(CELERY_BROKER_DIR / "queue"),
                                        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
                                        # kombu's exchange tables, else a `control/` folder in the working directory.
                                        "control_folder": str(CELERY_BROKER_DIR / "control"),
                                        "store_processed": False}
# Where the tasks are made (concord.jobs.task names each one's queue, which its router reads): the modules a
# worker imports at start.
CELERY_TASK_ROUTES = ("concord.jobs.route",)
CELERY_IMPORTS = (
    "ingest.services.work", "ingest.services.summaries", "agreement.services", "machines.services.runs",
    "machines.services.measurements", "machines.services.stored_jury", "findings.stored_shares", "accounts.digests",
    "reminders.idle", "webhooks.services", "codebook.services.proposals",
)
# Celery beat (a worker started with -B, or `celery -A config beat`): the notice digests, looked for hourly
# (each person gets one a day at most), queues left idle, looked for hourly, proposals past their vote, every ten
# minutes, and webhook messages due, every minute.
CELERY_BEAT_SCHEDULE = {
    "notice-digests": {"task": "accounts.digests.send_digests", "schedule": env_int("NOTICE_DIGEST_EVERY", 3600)},
    "idle-queues": {"task": "reminders.idle.tell_idle", "schedule": 3600},
    "overdue-proposals": {"task": "codebook.services.proposals.lapse_overdue", "schedule": 600},
    "webhooks": {"task": "webhooks.services.send_due", "schedule": 60},
}

# E-mail: the console on `make run` (DEBUG), SMTP from the environment in production.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.console.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_secret("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Concord <concord@localhost>")
# Where people open Concord, for the links of e-mails (a worker has no request to read it from).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
NOTICE_DIGEST_HOURS = env_int("NOTICE_DIGEST_HOURS", 24)
# A queue with reports left that nobody has labeled from for this many days tells its annotator and the leads.
QUEUE_IDLE_DAYS = env_int("QUEUE_IDLE_DAYS", 3)
# Days a proposal takes votes; one that not every member voted yes on by then lapses (silence is not a yes).
PROPOSAL_VOTE_DAYS = env_int("PROPOSAL_VOTE_DAYS", 14)
# The queues of concord.jobs.QUEUES and Celery's default one, which `make worker` and the tests' worker take.
CELERY_QUEUES_ALL = "ingest,summaries,statistics,celery"
# Agreement figures and machine raters run in a child process of the worker, kept this many seconds after its
# last task, so that an idle worker holds neither the statistics libraries nor their buffers (concord.child_processes).
TASKS_APART = env_bool("TASKS_APART", True)
TASKS_APART_IDLE = env_int("TASKS_APART_IDLE", 20)
# A running job (an ingest, a summary batch, a machine rater's run) whose heartbeat is older than this was
# killed; it is marked interrupted.
JOB_HEARTBEAT_STALE_SECONDS = env_int("JOB_HEARTBEAT_STALE_SECONDS", 5 * 60)
# Who started a job hears when it ended after this long, or when its worker died (a shorter one ended on screen).
JOB_NOTICE_SECONDS = env_int("JOB_NOTICE_SECONDS", 60)
# A worker writes its heartbeat this often; one not heard from for WORKER_SEEN_SECONDS is taken to be down
# (pages that wait on it say so, `/readyz` answers 503).
WORKER_BEAT_SECONDS = env_int("WORKER_BEAT_SECONDS", 15)
WORKER_SEEN_SECONDS = env_int("WORKER_SEEN_SECONDS", 60)

# Ingest: platform APIs (tests point the base URLs at a local server)
GITHUB_API_URL = os.environ.get("GITHUB_API_URL", "https://api.github.com")
GITEE_API_URL = os.environ.get("GITEE_API_URL", "https://gitee.com/api/v5")
GITHUB_TOKEN = env_secret("GITHUB_TOKEN")
GITEE_TOKEN = env_secret("GITEE_TOKEN")
INGEST_HTTP_ATTEMPTS = env_int("INGEST_HTTP_ATTEMPTS", 5)
INGEST_HTTP_BACKOFF_SECONDS = float(os.environ.get("INGEST_HTTP_BACKOFF_SECONDS", "2"))
INGEST_HTTP_TIMEOUT_SECONDS = float(os.environ.get("INGEST_HTTP_TIMEOUT_SECONDS", "60"))
# The longest a run waits for a rate limit to reset (GitHub's primary limit resets within the hour).
INGEST_MAX_WAIT_SECONDS = float(os.environ.get("INGEST_MAX_WAIT_SECONDS", "3700"))

# Summaries backend: "extractive" (built in, no network) or "llm" (any OpenAI-compatible chat endpoint)
SUMMARY_BACKEND = os.environ.get("SUMMARY_BACKEND", "extractive")
if SUMMARY_BACKEND not in {"extractive", "llm"}:
    raise ImproperlyConfigured("SUMMARY_BACKEND must be 'extractive' or 'llm'.")
if SUMMARY_BACKEND == "llm":
    LLM_BASE_URL = os.environ.get("LLM_BASE_URL", "")
    LLM_MODEL = os.environ.get("LLM_MODEL", "")
    if not (LLM_BASE_URL and LLM_MODEL):
        raise ImproperlyConfigured("SUMMARY_BACKEND=llm needs LLM_BASE_URL and LLM_MODEL.")
else:
    LLM_BASE_URL = LLM_MODEL = ""
LLM_API_KEY = env_secret("LLM_API_KEY")


def _llm_endpoints() -> dict[str, dict[str, str]]:
    """The language-model endpoints that carry the operator's credentials: only these may be sent a key of the
    server's. LLM_ENDPOINTS="local=http://127.0.0.1:8000/v1, hosted=https://api.example.com/v1", each with its
    key in LLM_ENDPOINT_<NAME>_API_KEY (or _FILE); LLM_BASE_URL, with LLM_API_KEY, is the endpoint "default"."""
    found: dict[str, dict[str, str]] = {}
    if os.environ.get("LLM_BASE_URL"):
        found["default"] = {"base_url": os.environ["LLM_BASE_URL"].strip(), "api_key": LLM_API_KEY}
    for item in os.environ.get("LLM_ENDPOINTS", "").split(","):
        if not item.strip():
            continue
        name, sep, url = item.partition("=")
        name = name.strip()
        if not sep or not name.replace("-", "").replace("_", "").isalnum() or not url.strip().startswith(
                ("http://", "https://")):
            raise ImproperlyConfigured(f"LLM_ENDPOINTS: {item.strip()!r} is not name=http(s)://address")
        key_name = "LLM_ENDPOINT_" + name.upper().replace("-", "_") + "_API_KEY"
        found[name] = {"base_url": url.strip(), "api_key": env_secret(key_name)}
    return found


LLM_ENDPOINTS = _llm_endpoints()
# Addresses that a rater's own endpoint may reach although they are not public (loopback, private, link-local):
# comma-separated addresses or CIDR blocks. Empty: public addresses only.
LLM_ALLOWED_NETWORKS = os.environ.get("LLM_ALLOWED_NETWORKS", "")
for _net in LLM_ALLOWED_NETWORKS.split(","):
    try:
        ipaddress.ip_network(_net.strip(), strict=False) if _net.strip() else None
    except ValueError as _exc:
        raise ImproperlyConfigured(f"LLM_ALLOWED_NETWORKS: {_exc}") from None
# Addresses webhooks may reach although they are not public, as for LLM_ALLOWED_NETWORKS; and how often saved
# labels are counted into a `label.saved` message.
WEBHOOK_ALLOWED_NETWORKS = os.environ.get("WEBHOOK_ALLOWED_NETWORKS", "")
for _net in WEBHOOK_ALLOWED_NETWORKS.split(","):
    try:
        ipaddress.ip_network(_net.strip(), strict=False) if _net.strip() else None
    except ValueError as _exc:
        raise ImproperlyConfigured(f"WEBHOOK_ALLOWED_NETWORKS: {_exc}") from None
WEBHOOK_LABEL_MINUTES = env_int("WEBHOOK_LABEL_MINUTES", 15)
LLM_TIMEOUT_SECONDS = float(os.environ.get("LLM_TIMEOUT_SECONDS", "60"))
LLM_ATTEMPTS = env_int("LLM_ATTEMPTS", 4)

# Worker processes for parsing and matching big JSON Lines imports (0 = one per core, 1 = none).
INGEST_PROCESSES = env_int("INGEST_PROCESSES", 0) or None
INGEST_PARALLEL_MIN_BYTES = env_int("INGEST_PARALLEL_MIN_BYTES", 20_000_000)

# How long audit entries are kept (manage.py audit_prune removes older ones); 0 keeps them all.
AUDIT_RETENTION_DAYS = env_int("AUDIT_RETENTION_DAYS", 0)
# Where each committed audit entry's id and hash are appended as well (the witness; "none" writes them to the
# log stream only). Keep it where the database's users cannot write: `manage.py audit_check` compares the table
# with it, and finds entries removed from the end or re-hashed, which the chain alone cannot show.
AUDIT_WITNESS_FILE = os.environ.get("AUDIT_WITNESS_FILE") or str(DATA_DIR / "var" / "audit-witness.jsonl")
if AUDIT_WITNESS_FILE.lower() == "none":
    AUDIT_WITNESS_FILE = ""

# The largest request body (an uploaded file) the web server accepts, checked before it is read.
UPLOAD_MAX_MB = env_int("UPLOAD_MAX_MB", 200)

# Uploaded files (ingest files), shared by the web process and the worker
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", DATA_DIR / "media"))
MEDIA_URL = "media/"

# REST API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "concord.json_parser.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    # A script gone wrong, or a stranger, cannot hammer the API: DRF's throttles, counted in the cache (Redis
    # when REDIS_URL is set, so every process counts together).
    "DEFAULT_THROTTLE_CLASSES": [
        "concord.throttling.AnonThrottle",
        "concord.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "30/minute"),
        "user": os.environ.get("API_THROTTLE_USER", "600/minute"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Studies, issue reports, labels and agreement. The same permission and blindness rules as the UI.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema describes every endpoint and field: for people with an account only.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Path ids (<id:…>, concord.ids.IdConverter) are whole numbers of 1 to 18 digits.
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
