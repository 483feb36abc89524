"""The network: connections and what decides them.

====================  ==========================================================
``transport``         the one place that opens connections: TCP, UDP, TLS, errors
``bulk``              raw bodies moved socket -> file by the kernel (splice)
``tls``               TLS contexts: verification, CA files, client certificates
``ports``             section 6's port policy: a port of another protocol is refused
``routing``           section 4's gateways: ``<scheme>_proxy``, ``no_proxy``, tunnels
``credentials``       logins from ``~/.netrc`` and the URL
====================  ==========================================================
"""
