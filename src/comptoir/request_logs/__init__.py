"""The request log of each connection (docs/api/oauth.md "Request log"): the lines the
middleware hands over, buffered and written about once a second."""
