"""The download: many URLs to files, streams and archives.

====================  ==========================================================
``downloader``        many URLs: retries, resume, limits, batches, events
``output``            the write path: ``.part`` files, renames that never destroy
``names``             local file names for remote resources (``-O``), made safe
``warc``              WARC/1.1 records of what was fetched (warcio), revisits, CDXJ
====================  ==========================================================
"""
