"""ddbst: DynamoDB single-table design, exact keys, request bodies and sealed
cursors from one model file. Send the requests with boto3 through
ddbst.boto3.Table, or with any client: requests are {"operation", "target",
"body"} dicts.

    from ddbst import Ddbst
    with Ddbst(model_file="model.json", cursor_keys=key_hex) as db:
        db.keys("User", {"orgId": "acme", "userId": "u1",
                         "email": "ann@acme.example"})["keys"]
"""

from ._errors import DdbstError, DynamoDBError
from ._library import library_path, load_library
from ._prepared import Prepared, TextRequest
from ._session import Ddbst, build_request
from ._types import (Check, Explanation, Hydration, ItemSize, Keys, Lint, Page,
                     PageItem, Parsed, Request, Requests, StreamAnswer,
                     Values)

__version__ = "0.2.0"

__all__ = ["Ddbst", "DdbstError", "DynamoDBError", "Prepared", "TextRequest",
           "build_request",
           "library_path", "load_library", "Check", "Explanation", "Hydration",
           "ItemSize", "Keys", "Lint", "Page", "PageItem", "Parsed",
           "Request", "Requests", "StreamAnswer", "Values", "__version__"]
