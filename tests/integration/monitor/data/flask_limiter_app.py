#!/usr/bin/python3
"""Two real Flask-Limiter apps (Debian python3-flask-limiter) on one Redis, served over HTTP on
loopback and sent requests, so that discover meets the keyspace such apps leave:

  app A, strategy fixed-window:  a_search, a_items, a_login  20/minute each, one client each
  app B, strategy moving-window: b_search, b_feed            20/minute each, two clients each

Every limit is "20 per 1 minute", so the key names share one shape, LIMITER/<client>/<endpoint>/
20/1/minute; A's keys are strings and B's lists. The client is the X-Forwarded-For value (as a
key function behind a proxy would take it). Prints the keys the apps wrote, as JSON.

Usage: flask_limiter_app.py REDIS_PORT"""
import json
import logging
import sys
import threading
import urllib.request

import redis
from flask import Flask
from flask_limiter import Limiter
from werkzeug.serving import make_server

REDIS = f"redis://127.0.0.1:{int(sys.argv[1])}"
logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request


def client_address():
    from flask import request
    return request.headers.get("X-Forwarded-For", request.remote_addr)


def make_app(name, strategy, endpoints):
    app = Flask(name)
    limiter = Limiter(client_address, app=app, storage_uri=REDIS, strategy=strategy,
                      default_limits=["20/minute"])
    for endpoint in endpoints:
        app.add_url_rule(f"/{endpoint}", endpoint, lambda: "ok")
    limiter.init_app(app)
    return app


def serve(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def hit(server, endpoint, client, times):
    for _ in range(times):
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.server_port}/{endpoint}",
            headers={"X-Forwarded-For": client})
        try:
            urllib.request.urlopen(request, timeout=5).read()
        except urllib.error.HTTPError as e:  # 429 once over the limit
            if e.code != 429:
                raise


a = serve(make_app("a", "fixed-window", ["a_search", "a_items", "a_login"]))
b = serve(make_app("b", "moving-window", ["b_search", "b_feed"]))
hit(a, "a_search", "203.0.113.7", 3)
hit(a, "a_items", "203.0.113.8", 25)
hit(a, "a_login", "203.0.113.9", 1)
hit(b, "b_search", "198.51.100.1", 4)
hit(b, "b_search", "198.51.100.2", 21)
hit(b, "b_feed", "198.51.100.1", 2)
hit(b, "b_feed", "198.51.100.3", 6)
a.shutdown()
b.shutdown()
keys = sorted(k.decode() for k in redis.Redis.from_url(REDIS).scan_iter("LIMITER/*"))
print(json.dumps(keys))
