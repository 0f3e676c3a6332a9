#!/usr/bin/env bash
# Captures the response bodies under tests/data/responses/local-*.json from
# DynamoDB Local, with ddbst's own request bodies (the CLI) sent by curl:
#   cmake --build --preset default
#   scripts/dynamodb-local tests/data/responses/capture.sh build/default/ddbst
# Values are fixed (timestamps, ULIDs), so a capture gives the same bodies
# again (for the stream, see below).
set -euo pipefail
ddbst=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
saas="$root/examples/saas/model.json"
blog="$root/examples/blog/model.json"
: "${DDBST_ENDPOINT:?run under scripts/dynamodb-local}"

# send TARGET BODY: prints the response body (any HTTP status)
send() {
  curl -sS --aws-sigv4 "aws:amz:us-east-1:dynamodb" --user local:local \
    -H "X-Amz-Target: $1" -H "Content-Type: application/x-amz-json-1.0" \
    --data-binary "$2" "$DDBST_ENDPOINT"
}
# ddb VERB ARGS...: a ddbst request sent as is (verbs that read operations
# from stdin read this function's)
ddb() {
  local line op body
  line=$("$ddbst" "$@")
  op=${line%%$'\t'*}
  body=${line#*$'\t'}
  send "DynamoDB_20120810.$op" "$body"
}
save() { cat >"$here/local-$1.json"; echo "  local-$1.json" >&2; }
quiet() { "$@" >/dev/null; }

# ---- the SaaS model ----
quiet ddb create-table "$saas"
quiet ddb create "$saas" Organisation orgId=1 name=Acme plan=pro createdAt=2026-01-02T10:00:00Z
quiet ddb create "$saas" User orgId=1 userId=2 email=Ann@X.com role=admin name=Ann
quiet ddb create "$saas" User orgId=1 userId=3 email=bob@x.com role=member name=Bob
quiet ddb create "$saas" Project orgId=1 projectId=p1 name=Alpha status=active createdAt=2026-01-05T09:00:00Z
quiet ddb create "$saas" Project orgId=1 projectId=p2 name=Beta status=archived createdAt=2026-02-01T12:30:00Z
quiet ddb create "$saas" Event projectId=p1 ts=2026-03-14T09:00:00Z eventId=01J0000000000000000000000A type=deploy \
  'payload={"version":"1.2.3","replicas":3,"ratio":0.25,"canary":true,"notes":null,"tags":["a","b"],"env":{"region":"eu-west-1"}}' \
  expiresAt=1800000000

ddb get "$saas" User orgId=1 userId=2 | save get-user
ddb get "$saas" User orgId=1 userId=9 | save get-missing
ddb query "$saas" listUsers orgId=1 --limit 1 | save query-users-page1
ddb query "$saas" listProjects orgId=1 | save query-projects
ddb query "$saas" projectsByStatus status=active | save query-projects-by-status
ddb query "$saas" userByEmail email=ann@x.com | save query-user-by-email
# the full User of that KEYS_ONLY page: its hydration's BatchGetItem
ddb hydrate "$saas" <"$here/local-query-user-by-email.json" | save batch-get-hydrate
ddb query "$saas" listEvents projectId=p1 | save query-events
printf '%s\n' '{"op":"get","entity":"User","values":{"orgId":"1","userId":"2"}}' \
  '{"op":"get","entity":"User","values":{"orgId":"1","userId":"9"}}' \
  '{"op":"get","entity":"Organisation","values":{"orgId":"1"}}' |
  ddb batch-get "$saas" | save batch-get
printf '%s\n' '{"op":"put","entity":"Organisation","values":{"orgId":"2","name":"Beta Ltd","plan":"free","createdAt":"2026-01-03T00:00:00Z"}}' |
  ddb batch-write "$saas" | save batch-write
printf '%s\n' '{"op":"get","entity":"User","values":{"orgId":"1","userId":"2"}}' \
  '{"op":"get","entity":"User","values":{"orgId":"1","userId":"9"}}' \
  '{"op":"get","entity":"Project","values":{"orgId":"1","projectId":"p1","createdAt":"2026-01-05T09:00:00Z"}}' |
  ddb transact "$saas" | save transact-get

# Errors: the same user again (item and guard both taken); another user with
# Ann's email (guard taken); a plain create of an existing organisation.
ddb create "$saas" User orgId=1 userId=2 email=Ann@X.com | save error-cancel-exists
ddb create "$saas" User orgId=1 userId=4 email=ANN@x.com | save error-cancel-unique
ddb create "$saas" Organisation orgId=1 name=Again | save error-conditional
printf '%s\n' '{"op":"check","entity":"User","values":{"orgId":"1","userId":"9"}}' \
  '{"op":"update","entity":"Organisation","values":{"orgId":"1"},"set":{"plan":"team"}}' |
  ddb transact "$saas" | save error-cancel-check
send DynamoDB_20120810.Query '{"TableName":"saas-api-dev","KeyConditionExpression":"#p = :v","ExpressionAttributeValues":{":v":{"S":"x"}}}' |
  save error-validation
send DynamoDB_20120810.GetItem '{"TableName":"no-such-table","Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}' |
  save error-not-found

# Stream records of the writes above and of an update and a delete, in the
# Streams API's GetRecords shape (a Lambda event adds eventSourceARN).
quiet ddb update "$saas" User orgId=1 userId=3 --set role=admin
quiet ddb delete "$saas" Project orgId=1 projectId=p2 createdAt=2026-02-01T12:30:00Z
arn=$(send DynamoDB_20120810.DescribeTable '{"TableName":"saas-api-dev"}' | jq -r .Table.LatestStreamArn)
shard=$(send DynamoDBStreams_20120810.DescribeStream "{\"StreamArn\":\"$arn\"}" |
  jq -r '.StreamDescription.Shards[0].ShardId')
iter=$(send DynamoDBStreams_20120810.GetShardIterator \
  "{\"StreamArn\":\"$arn\",\"ShardId\":\"$shard\",\"ShardIteratorType\":\"TRIM_HORIZON\"}" |
  jq -r .ShardIterator)
# What differs from one capture to the next is made fixed: the random
# eventIDs (named after the sequence number instead), the stream's ARN (its
# creation time) and the records' creation times.
send DynamoDBStreams_20120810.GetRecords "{\"ShardIterator\":\"$iter\"}" |
  jq -c '{Records: [.Records[] |
      .eventID = ("local-" + .dynamodb.SequenceNumber) |
      .dynamodb.ApproximateCreationDateTime = 1773478800 |
      . + {eventSourceARN: "arn:aws:dynamodb:ddblocal:000000000000:table/saas-api-dev/stream/2026-03-14T09:00:00.000"}]}' |
  save stream-event

# ---- the blog model: versions and a unique slug ----
quiet ddb create-table "$blog"
quiet ddb create "$blog" Blog blogId=01J00000000000000000000001 slug=hello title=Hello createdAt=2026-01-01T00:00:00.000Z
ddb update "$blog" Blog blogId=01J00000000000000000000001 --set title=Again --expect-version 7 |
  save error-version
ddb update "$blog" Blog blogId=01J00000000000000000000001 --set slug=hello2 --previous slug=hello \
  --expect-version 5 | save error-cancel-version
