# The anyurl command in a small image (the test servers' image is docker/Dockerfile):
#
#   docker build -f docker/anyurl.Dockerfile -t anyurl .     # from the repository's root
#   docker run --rm anyurl get https://example.org/           # the body on stdout
#   docker run --rm -v "$PWD:/work" anyurl get -O ftp://ftp.example.org/pub/README
#
# The extras are the command's progress bars (cli), HTTP/2 and WARC output; add trio or
# serve to ANYURL_EXTRAS for those (`--build-arg ANYURL_EXTRAS=cli,http2,warc,trio`).
FROM python:3.12-slim

ARG ANYURL_EXTRAS=cli,http2,warc

COPY pyproject.toml README.md LICENSE MANIFEST.in /src/
COPY src /src/src
RUN pip install --no-cache-dir --disable-pip-version-check "/src[${ANYURL_EXTRAS}]" \
    && rm -rf /src \
    && useradd --create-home --uid 1000 anyurl \
    && mkdir /work && chown anyurl: /work

# Not root: anyurl needs no privilege, and files written to a mounted /work belong to uid 1000.
USER anyurl
WORKDIR /work
ENTRYPOINT ["anyurl"]
CMD ["--help"]
