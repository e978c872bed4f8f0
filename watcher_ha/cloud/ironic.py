"""Reading Ironic's answers: what it said when it refused."""

import json


def said(response):
    """What Ironic said in an error response (the faultstring of the JSON
    document its error_message holds), and the status."""
    try:
        body = response.json()
    except ValueError:
        body = None
    message = body.get('error_message') if isinstance(body, dict) else None
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            pass
    if isinstance(message, dict):
        message = message.get('faultstring')
    if not (isinstance(message, str) and message):
        message = response.text.strip() or response.reason
    return '%s (HTTP %s)' % (message, response.status_code)
