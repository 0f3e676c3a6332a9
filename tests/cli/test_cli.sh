#!/usr/bin/env bash
# Runs the `ddbst` command as a user would and checks its output and exit
# codes. Usage: test_cli.sh PATH_TO_DDBST SOURCE_DIR
set -u
ddbst=$1
src=$2
saas=$src/examples/saas/model.json
blog=$src/examples/blog/model.json
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME EXIT_CODE EXPECTED_STDOUT EXPECTED_STDERR_SUBSTRING -- ARGS...
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 5
  local out err rc
  out=$("$ddbst" "$@" 2>"$tmp/err")
  rc=$?
  err=$(cat "$tmp/err")
  if [[ $rc -ne $want_rc ]]; then
    echo "FAIL $name: exit $rc, wanted $want_rc (stderr: $err)"
    failed=$((failed + 1))
  elif [[ -n $want_out && $out != "$want_out" ]]; then
    echo "FAIL $name: stdout"
    echo "  got:    $out"
    echo "  wanted: $want_out"
    failed=$((failed + 1))
  elif [[ -n $want_err && $err != *"$want_err"* ]]; then
    echo "FAIL $name: stderr '$err' lacks '$want_err'"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

expect check-saas 0 '{"ok":true,"table":"saas-api-dev","entities":4,"patterns":7}' '' -- check "$saas"
expect check-blog 0 '{"ok":true,"table":"site-content","entities":2,"patterns":7}' '' -- check "$blog"
expect check-table-override 0 '{"ok":true,"table":"saas-api-prod","entities":4,"patterns":7}' '' -- --table saas-api-prod check "$saas"
expect check-missing-file 2 '' 'ddbst: ' -- check "$tmp/nope.json"

# Every error of a broken model, each on its own line as
# FILE:LINE:COLUMN: PATH: MESSAGE, exit 2.
cat >"$tmp/bad.json" <<'JSON'
{ "ddbst": 1,
  "table": { "name": "t1x", "partitionKey": "PK", "sortKey": "SK", "sortkey": "x" },
  "entities": { "A": { "attributes": { "id": "strin" }, "key": { "pk": "A#{id}", "sk": "A#{nope}" } } } }
JSON
expect check-every-error 2 '' "$tmp/bad.json:2:68: table.sortkey: unknown field" -- check "$tmp/bad.json"
n=$("$ddbst" check "$tmp/bad.json" 2>&1 | grep -c "^$tmp/bad.json:[0-9]*:[0-9]*: ")
if [[ $n -ge 3 ]]; then passed=$((passed + 1)); else echo "FAIL check-error-count: $n lines"; failed=$((failed + 1)); fi
expect check-unknown-type 2 '' 'entities.A.attributes.id: unknown type' -- check "$tmp/bad.json"
expect check-undeclared-facet 2 '' "entities.A.key.sk: facet 'nope' is not an attribute" -- check "$tmp/bad.json"

printf '{ "ddbst": 1,\n  "table": {\n' >"$tmp/syntax.json"
expect check-syntax 2 '' "$tmp/syntax.json:3:1: parse error: premature EOF" -- check "$tmp/syntax.json"

expect keys-org 0 '{"PK":"ORG#123","SK":"ORG#123","_type":"Organisation"}' '' \
  -- keys "$saas" Organisation orgId=123 name=Acme plan=pro createdAt=2026-03-14T09:00:00Z
expect keys-user 0 '{"PK":"ORG#123","SK":"USER#9","GSI1PK":"EMAIL#ann@example.com","_type":"User"}' '' \
  -- keys "$saas" User orgId=123 userId=9 email=Ann@Example.com role=admin name=Ann
expect keys-project 0 '{"PK":"ORG#123","SK":"PROJECT#2026-03-14T09:00:00Z#p1","GSI2PK":"STATUS#active","GSI2SK":"2026-03-14T09:00:00Z","_type":"Project"}' '' \
  -- keys "$saas" Project orgId=123 projectId=p1 createdAt=2026-03-14T10:00:00+01:00 name=Website status=active
expect keys-project-no-status 0 '{"PK":"ORG#123","SK":"PROJECT#2026-03-14T09:00:00Z#p1","_type":"Project"}' '' \
  -- keys "$saas" Project orgId=123 projectId=p1 createdAt=2026-03-14T09:00:00Z
expect keys-event 0 '{"PK":"PROJECT#p1","SK":"EVENT#2026-03-14T09:00:00Z#01J0000000000000000000000A","_type":"Event"}' '' \
  -- keys "$saas" Event projectId=p1 ts=2026-03-14T09:00:00Z eventId=01j0000000000000000000000a type=deploy
expect keys-injection 2 '' "ddbst: facet orgId: User.orgId contains the key delimiter '#'" \
  -- keys "$saas" User orgId=1#USER#admin userId=9 email=a@b.c
expect keys-missing-facet 2 '' 'ddbst: facet userId: User.userId is needed for SK = USER#{userId}' \
  -- keys "$saas" User orgId=123 email=a@b.c
expect keys-bad-enum 2 '' "ddbst: Project.status: status: 'deleted' is not one of the enum's values" \
  -- keys "$saas" Project orgId=1 projectId=p status=deleted
expect keys-bad-timestamp 2 '' 'ddbst: Event.ts: ts: ' \
  -- keys "$saas" Event projectId=p1 ts=yesterday
expect keys-unknown-attr 2 '' 'ddbst: values.colour: User has no attribute colour' \
  -- keys "$saas" User orgId=1 userId=2 colour=red
expect keys-unknown-entity 2 '' 'ddbst: entity: the model has no entity Widget' -- keys "$saas" Widget a=b
expect keys-not-name-value 2 '' 'expected NAME=VALUE' -- keys "$saas" User orgId
expect keys-sparse-partial 2 '' 'ddbst: Blog.indexes.gsi3: Blog is partly given for index gsi3: also give publishedAt' \
  -- keys "$blog" Blog blogId=01ARYZ6S41TSV4RRFFQ69G5FAV slug=hello title=Hi category=news status=published createdAt=2026-01-02T03:04:05.678Z
expect keys-blog-published 0 '{"pk":"BLOG#01ARYZ6S41TSV4RRFFQ69G5FAV","sk":"BLOG#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi1pk":"BLOG","gsi1sk":"2026-01-02T03:04:05.678Z#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi2pk":"BLOG#SLUG#hello","gsi3pk":"BLOG#CATEGORY#news","gsi3sk":"2026-01-01T00:00:00Z#01ARYZ6S41TSV4RRFFQ69G5FAV","entity":"Blog"}' '' \
  -- keys "$blog" Blog blogId=01ARYZ6S41TSV4RRFFQ69G5FAV slug=hello title=Hi category=news status=published publishedAt=2026-01-01T00:00:00Z createdAt=2026-01-02T03:04:05.678Z
expect keys-blog-draft 0 '{"pk":"BLOG#01ARYZ6S41TSV4RRFFQ69G5FAV","sk":"BLOG#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi1pk":"BLOG","gsi1sk":"2026-01-02T03:04:05.678Z#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi2pk":"BLOG#SLUG#hello","entity":"Blog"}' '' \
  -- keys "$blog" Blog blogId=01ARYZ6S41TSV4RRFFQ69G5FAV slug=hello title=Hi category=news publishedAt=2026-01-01T00:00:00Z createdAt=2026-01-02T03:04:05.678Z
expect keys-service-padded 0 '{"pk":"SERVICE#01ARYZ6S41TSV4RRFFQ69G5FAV","sk":"SERVICE#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi1pk":"SERVICE","gsi1sk":"0042#01ARYZ6S41TSV4RRFFQ69G5FAV","gsi2pk":"SERVICE#SLUG#audits","entity":"Service"}' '' \
  -- keys "$blog" Service serviceId=01ARYZ6S41TSV4RRFFQ69G5FAV slug=audits name=Audits position=42
expect keys-service-too-wide 2 '' 'ddbst: Service.position: ' \
  -- keys "$blog" Service serviceId=01ARYZ6S41TSV4RRFFQ69G5FAV slug=a name=A position=12345

# Defaults fill what is missing: a generated ULID and "now" appear in keys.
out=$("$ddbst" keys "$saas" Event projectId=p1 ts=2026-03-14T09:00:00Z)
if [[ $out =~ ^\{\"PK\":\"PROJECT#p1\",\"SK\":\"EVENT#2026-03-14T09:00:00Z#[0-7][0-9A-HJKMNP-TV-Z]{25}\",\"_type\":\"Event\"\}$ ]]; then
  passed=$((passed + 1))
else
  echo "FAIL keys-generated-ulid: $out"; failed=$((failed + 1))
fi

expect parse-user 0 '{"entity":"User","values":{"orgId":"123","userId":"9"}}' '' -- parse "$saas" 'ORG#123' 'USER#9'
expect parse-org 0 '{"entity":"Organisation","values":{"orgId":"123"}}' '' -- parse "$saas" 'ORG#123' 'ORG#123'
expect parse-project 0 '{"entity":"Project","values":{"orgId":"123","projectId":"p1","createdAt":"2026-03-14T09:00:00Z"}}' '' \
  -- parse "$saas" 'ORG#123' 'PROJECT#2026-03-14T09:00:00Z#p1'
expect parse-gsi1 0 '{"entity":"User","values":{"email":"ann@example.com"}}' '' -- parse "$saas" --index GSI1 'EMAIL#ann@example.com'
expect parse-service 0 '{"entity":"Service","values":{"serviceId":"01ARYZ6S41TSV4RRFFQ69G5FAV","position":42}}' '' \
  -- parse "$blog" --index gsi1 SERVICE '0042#01ARYZ6S41TSV4RRFFQ69G5FAV'
expect parse-no-entity 2 '' 'ddbst: key: no entity' -- parse "$saas" 'TEAM#1' 'TEAM#1'
expect parse-org-mismatch 2 '' 'ddbst: key: ' -- parse "$saas" 'ORG#1' 'ORG#2'
expect parse-bad-timestamp 2 '' 'is not a canonical timestamp' -- parse "$saas" 'ORG#1' 'PROJECT#2026-03-14T09:00:00.000Z#p1'
expect parse-unknown-index 2 '' 'no index named GSI9' -- parse "$saas" --index GSI9 'X'

expect patterns-saas 0 '' '' -- patterns "$saas"
out=$("$ddbst" patterns "$saas")
if [[ $out == *'"listEvents":{"op":"query","entities":["Event"],"index":null,"pk":"PROJECT#{projectId}","sk":"EVENT#{ts}#{eventId}","range":"ts","order":"asc","limit":{"default":100,"max":1000}}'* ]]; then
  passed=$((passed + 1))
else
  echo "FAIL patterns-listEvents: $out"; failed=$((failed + 1))
fi


# Request verbs: one OPERATION<TAB>BODY line per request.
expect get-user 0 $'GetItem\t{"TableName":"saas-api-dev","Key":{"PK":{"S":"ORG#123"},"SK":{"S":"USER#9"}},"ConsistentRead":true}' '' \
  -- get "$saas" User orgId=123 userId=9 --consistent
expect get-table-override 0 $'GetItem\t{"TableName":"saas-api-prod","Key":{"PK":{"S":"ORG#1"},"SK":{"S":"ORG#1"}}}' '' \
  -- --table saas-api-prod get "$saas" Organisation orgId=1
expect query-between 0 $'Query\t{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK"},"ExpressionAttributeValues":{":v0":{"S":"PROJECT#p1"},":v1":{"S":"EVENT#2026-01-01"},":v2":{"S":"EVENT#2026-02-02"}},"Limit":100}' '' \
  -- query "$saas" listEvents projectId=p1 --gte ts=2026-01-01 --lte ts=2026-02-01
expect query-limit-capped 0 '' '' -- query "$saas" listUsers orgId=1 --limit 1000
out=$("$ddbst" query "$saas" listUsers orgId=1 --limit 1000)
if [[ $out == *'"Limit":100}' ]]; then passed=$((passed + 1)); else echo "FAIL query-limit-capped: $out"; failed=$((failed + 1)); fi
expect query-two-conditions 2 '' 'one sort-key condition' -- query "$saas" listEvents projectId=p1 --gt ts=2026 --gte ts=2027
expect query-two-uppers 2 '' 'one lower bound (--gt, --gte) with one upper bound' -- query "$saas" listEvents projectId=p1 --lt ts=2026 --lte ts=2027
expect query-pair-two-facets 2 '' 'a lower and an upper bound must name one facet' -- query "$saas" listEvents projectId=p1 --gt ts=2026 --lt eventId=x
expect query-gt-lt 0 $'Query\t{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK"},"ExpressionAttributeValues":{":v0":{"S":"PROJECT#p1"},":v1":{"S":"EVENT#2027"},":v2":{"S":"EVENT#2027-03"}},"Limit":100}' '' \
  -- query "$saas" listEvents projectId=p1 --lt ts=2027-03 --gt ts=2026
expect query-gte-lt 0 $'Query\t{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK"},"ExpressionAttributeValues":{":v0":{"S":"PROJECT#p1"},":v1":{"S":"EVENT#2026-01-01"},":v2":{"S":"EVENT#2026-02-01"}},"Limit":100}' '' \
  -- query "$saas" listEvents projectId=p1 --gte ts=2026-01-01 --lt ts=2026-02-01
expect query-gt-lte-empty 2 '' 'the condition selects nothing' -- query "$saas" listEvents projectId=p1 --gt ts=2026-03 --lte ts=2026-03-31T23:59:59Z
cat_m=$src/examples/catalog/model.json
expect update-return-new 0 $'UpdateItem\t{"TableName":"catalog","Key":{"PK":{"S":"SHOP#s1"},"SK":{"S":"PRODUCT#p1"}},"UpdateExpression":"SET #n0 = :v0, #n1 = #n1 + :v1, #n2 = if_not_exists(#n2, :v2) + :v3","ConditionExpression":"attribute_exists(#n3)","ExpressionAttributeNames":{"#n0":"updatedAt","#n1":"stock","#n2":"version","#n3":"PK"},"ExpressionAttributeValues":{":v0":{"S":"1970-01-01T00:00:00.000Z"},":v1":{"N":"1"},":v2":{"N":"0"},":v3":{"N":"1"}},"ReturnValues":"ALL_NEW","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}' '' \
  -- update "$cat_m" Product shopId=s1 sku=p1 --set 'stock = stock + 1' --return new --return-on-failure --now 1
expect delete-return-old 0 $'DeleteItem\t{"TableName":"catalog","Key":{"PK":{"S":"SHOP#s1"},"SK":{"S":"PRODUCT#p1"}},"ReturnValues":"ALL_OLD"}' '' \
  -- delete "$cat_m" Product shopId=s1 sku=p1 --return old
expect put-return-new 2 '' 'a put returns the item as it was (return ALL_OLD, --return old or DDBST_RETURN_ALL_OLD) or nothing' -- put "$cat_m" Product shopId=s1 sku=p1 name=x --return new
expect return-unknown 2 '' '--return newest: expected new, old, updated-new, updated-old or none' -- update "$cat_m" Product shopId=s1 sku=p1 --set stock=2 --return newest
expect query-count 0 $'Query\t{"TableName":"catalog","KeyConditionExpression":"#n0 = :v0 AND begins_with(#n1, :v1)","FilterExpression":"#n2 = :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK","#n2":"status"},"ExpressionAttributeValues":{":v0":{"S":"SHOP#s1"},":v1":{"S":"PRODUCT#"},":v2":{"S":"draft"}},"Limit":50,"Select":"COUNT"}' '' \
  -- query "$cat_m" listProducts shopId=s1 --count --filter 'status = "draft"'
expect query-get-pattern 2 '' 'getUser is a get (ddbst_get_request) pattern, not a query' -- query "$saas" getUser orgId=1
expect update-primary 2 '' 'Project.projectId: Project.projectId is part of the primary key' \
  -- update "$saas" Project orgId=1 projectId=p createdAt=2026-01-01T00:00:00Z --remove projectId
expect update-unique-needs-previous 2 '' 'give the previous value too' \
  -- update "$saas" User orgId=1 userId=2 --set email=b@x.com
expect put-unique-refused 2 '' 'write it with create' -- put "$saas" User orgId=1 userId=2 email=a@b.c
out=$("$ddbst" create "$saas" User orgId=1 userId=2 email=Ann@X.com)
if [[ $out == TransactWriteItems$'\t'*'"_type":{"S":"User.email"}'* ]]; then passed=$((passed + 1)); else echo "FAIL create-unique: $out"; failed=$((failed + 1)); fi
n=$(printf '%s\n' '{"op":"get","entity":"Organisation","values":{"orgId":"1"}}' '{"op":"get","entity":"Organisation","values":{"orgId":"1"}}' | "$ddbst" batch-get "$saas" | grep -c 'ORG#1"},"SK"')
if [[ $n == 1 ]]; then passed=$((passed + 1)); else echo "FAIL batch-get-dedupe: $n"; failed=$((failed + 1)); fi
n=$(for i in $(seq 1 60); do echo "{\"op\":\"put\",\"entity\":\"Organisation\",\"values\":{\"orgId\":\"o$i\"}}"; done | "$ddbst" batch-write "$saas" | grep -c '^BatchWriteItem')
if [[ $n == 3 ]]; then passed=$((passed + 1)); else echo "FAIL batch-write-chunks: $n"; failed=$((failed + 1)); fi
out=$(printf '%s\n' '{"op":"create","entity":"Organisation","values":{"orgId":"1"}}' '{"op":"delete","entity":"Organisation","values":{"orgId":"1"}}' | "$ddbst" transact "$saas" 2>&1)
if [[ $out == *'line 2: transaction: two operations on one item'* ]]; then passed=$((passed + 1)); else echo "FAIL transact-duplicate: $out"; failed=$((failed + 1)); fi
out=$(printf '%s\n' '{"op":"create","entity":"Organisation","values":{"orgId":"1"}, "colour": 1}' | "$ddbst" transact "$saas" 2>&1)
if [[ $out == *'line 1: colour: unknown field'* ]]; then passed=$((passed + 1)); else echo "FAIL transact-unknown-field: $out"; failed=$((failed + 1)); fi
expect create-table 0 '' '' -- create-table "$saas"
# The other table verbs: exact lines, and each refusal.
orders=$src/docs/examples/orders-settings.json
tab=$'\t'
expect describe-table 0 "DescribeTable${tab}{\"TableName\":\"saas-api-dev\"}" '' -- describe-table "$saas"
expect delete-table 0 "DeleteTable${tab}{\"TableName\":\"saas-api-prod\"}" '' -- --table saas-api-prod delete-table "$saas"
expect describe-table-arn 0 "DescribeTable${tab}{\"TableName\":\"arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev\"}" '' \
  -- --table arn:aws:dynamodb:eu-west-1:123456789012:table/saas-api-dev describe-table "$saas"
expect update-table-add 0 "UpdateTable${tab}{\"TableName\":\"saas-api-dev\",\"AttributeDefinitions\":[{\"AttributeName\":\"GSI1PK\",\"AttributeType\":\"S\"}],\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"GSI1\",\"KeySchema\":[{\"AttributeName\":\"GSI1PK\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"}}}]}" '' \
  -- update-table "$saas" --add-index GSI1
expect update-table-remove 0 "UpdateTable${tab}{\"TableName\":\"saas-api-dev\",\"GlobalSecondaryIndexUpdates\":[{\"Delete\":{\"IndexName\":\"OldIndex\"}}]}" '' \
  -- update-table --remove-index OldIndex "$saas"
expect update-table-neither 2 '' 'updateTable takes addIndex or removeIndex, one of them' -- update-table "$saas"
expect update-table-unknown-index 2 '' 'the model declares no index named GSI7' -- update-table "$saas" --add-index GSI7
expect update-table-still-declared 2 '' 'the model still declares GSI2' -- update-table "$saas" --remove-index GSI2
expect update-table-no-value 2 '' '--add-index needs a value' -- update-table "$saas" --add-index
expect update-table-bad-option 2 '' 'unknown option --index' -- update-table "$saas" --index GSI1
expect backups 0 "UpdateContinuousBackups${tab}{\"TableName\":\"orders-prod\",\"PointInTimeRecoverySpecification\":{\"PointInTimeRecoveryEnabled\":true,\"RecoveryPeriodInDays\":14}}" '' \
  -- update-continuous-backups "$orders"
expect insights-table 0 "UpdateContributorInsights${tab}{\"TableName\":\"orders-prod\",\"ContributorInsightsAction\":\"ENABLE\"}" '' \
  -- update-contributor-insights "$orders"
expect insights-index 0 "UpdateContributorInsights${tab}{\"TableName\":\"orders-prod\",\"IndexName\":\"GSI1\",\"ContributorInsightsAction\":\"ENABLE\"}" '' \
  -- update-contributor-insights "$orders" --index GSI1
expect insights-undeclared 2 '' 'contributorInsights: the model does not declare contributorInsights for the table' \
  -- update-contributor-insights "$saas"
expect ttl-enable 0 "UpdateTimeToLive${tab}{\"TableName\":\"saas-api-dev\",\"TimeToLiveSpecification\":{\"AttributeName\":\"expiresAt\",\"Enabled\":true}}" '' \
  -- update-time-to-live "$saas"
expect ttl-disable 0 "UpdateTimeToLive${tab}{\"TableName\":\"orders-prod\",\"TimeToLiveSpecification\":{\"AttributeName\":\"expiresAt\",\"Enabled\":false}}" '' \
  -- update-time-to-live "$orders" --disable expiresAt
expect ttl-undeclared 2 '' 'ttlAttribute: the model declares no ttlAttribute to enable' \
  -- update-time-to-live "$orders"
expect ttl-still-declared 2 '' 'disable: the model still declares expiresAt as its ttlAttribute' \
  -- update-time-to-live "$saas" --disable expiresAt
expect describe-table-two-models 2 '' 'describe-table takes one model file' -- describe-table "$saas" "$saas"
# Arguments reach the library as they were typed: quotes, backslashes and
# control characters escaped in the request, not interpreted.
expect keys-escaped 0 '{"PK":"ORG#a\"b\\c","SK":"ORG#a\"b\\c","_type":"Organisation"}' '' \
  -- keys "$saas" Organisation 'orgId=a"b\c' "name=$(printf 'x\ty')"
expect query-limit-not-number 2 '' '--limit: expected a whole number' -- query "$saas" listUsers orgId=1 --limit ten
# Errors name the stdin line, blank lines counted.
out=$(printf '%s\n' '{"op":"get","entity":"Organisation","values":{"orgId":"1"}}' '' '{"op":"get","entity":"Nope"}' | "$ddbst" batch-get "$saas" 2>&1)
if [[ $out == 'ddbst: line 3: entity: the model has no entity Nope' ]]; then passed=$((passed + 1)); else echo "FAIL batch-error-line: $out"; failed=$((failed + 1)); fi
out=$(printf '%s\n' '{"op":"get"' | "$ddbst" batch-get "$saas" 2>&1)
if [[ $out == 'ddbst: line 1: expected one JSON object ('* ]]; then passed=$((passed + 1)); else echo "FAIL batch-not-json: $out"; failed=$((failed + 1)); fi

# Issue 16: text that is not text is refused where it is, by the field it was
# given as, never rewritten: a lone surrogate escape (a JavaScript string cut
# inside an emoji) and invalid UTF-8, typed as arguments or read from stdin.
expect keys-invalid-utf8 2 '' 'ddbst: values.orgId: invalid UTF-8: byte 0xF8-0xFF never occurs' \
  -- keys "$saas" Organisation "orgId=$(printf 'x\377y')"
expect keys-given-twice 2 '' 'ddbst: values.orgId: orgId given twice' \
  -- keys "$saas" Organisation orgId=t1 orgId=t2
out=$(printf '%s\n' '{"op":"put","entity":"Organisation","values":{"orgId":"x\ud800y"}}' | "$ddbst" batch-write "$saas" 2>&1)
if [[ $out == 'ddbst: line 1: values.orgId: \ud800 is the high half of a surrogate pair, with no low half (\udc00-\udfff) after it' ]]; then passed=$((passed + 1)); else echo "FAIL jsonl-lone-surrogate: $out"; failed=$((failed + 1)); fi
out=$(printf '%s\n' '{"op":"put","entity":"Organisation","values":{"orgId":"o1"}}' '{"op":"put","entity":"Organisation","values":{"orgId":"\ud800\u0041"}}' | "$ddbst" batch-write "$saas" 2>&1)
if [[ $out == 'ddbst: line 2: values.orgId: \ud800 is the high half of a surrogate pair'* ]]; then passed=$((passed + 1)); else echo "FAIL jsonl-joined-surrogate: $out"; failed=$((failed + 1)); fi
out=$(printf '{"op":"put","entity":"Organisation","values":{"orgId":"caf\303"}}\n' | "$ddbst" batch-write "$saas" 2>&1)
if [[ $out == 'ddbst: line 1: values.orgId: invalid UTF-8: truncated multi-byte sequence' ]]; then passed=$((passed + 1)); else echo "FAIL jsonl-invalid-utf8: $out"; failed=$((failed + 1)); fi
out=$(printf '%s\n' '{"op":"put","entity":"Organisation","values":{"orgId":"a\u0000b"}}' | "$ddbst" batch-write "$saas" 2>&1)
if [[ $out == 'ddbst: line 1: values.orgId: contains a NUL byte (\u0000)' ]]; then passed=$((passed + 1)); else echo "FAIL jsonl-nul: $out"; failed=$((failed + 1)); fi
# a pair in order is one character, as JSON means it
expect keys-surrogate-pair 0 '{"PK":"ORG#😀","SK":"ORG#😀","_type":"Organisation"}' '' \
  -- keys "$saas" Organisation "orgId=😀"
out=$(printf '%s\n' '{"op":"put","entity":"Organisation","values":{"orgId":"\ud83d\ude00"}}' | "$ddbst" batch-write "$saas" 2>&1)
if [[ $out == *'"PK":{"S":"ORG#😀"}'* ]]; then passed=$((passed + 1)); else echo "FAIL jsonl-surrogate-pair: $out"; failed=$((failed + 1)); fi

# Issue 16: what DynamoDB would refuse of a write is refused first, by name:
# a set with an element twice (numbers by value), an update past 400 KB.
catalog=$src/examples/catalog/model.json
expect put-set-twice 2 '' 'ddbst: Product.tags: tags: "a" is given twice in the set: DynamoDB refuses a set with duplicate elements' \
  -- put "$catalog" Product shopId=s1 sku=k1 name=n 'tags=["a","a"]'
expect put-number-twice 2 '' 'ddbst: Product.sizes: sizes: 1 and 1.0 are one number, given twice in the set' \
  -- put "$catalog" Product shopId=s1 sku=k1 name=n 'sizes=[1,1.0]'
expect update-add-twice 2 '' 'ddbst: update: at character 10: Product.tags: "b" is given twice in the set' \
  -- update "$catalog" Product shopId=s1 sku=k1 --add 'tags ["b","b"]'
expect put-map-name-twice 2 '' 'ddbst: Product.details: details: "a" is given twice in one object: a map holds one value per name' \
  -- put "$catalog" Product shopId=s1 sku=k1 name=n 'details={"a":1,"b":{"a":1},"a":2}'
expect upsert-without-required 2 '' 'ddbst: User.email: User.email is required, and an upsert creates the item when there is none: give email, or update without upsert' \
  -- update "$saas" User orgId=o1 userId=u1 --set role=admin --upsert
out=$(printf '{"op":"update","entity":"Product","values":{"shopId":"s1","sku":"k1","name":"%s"}}\n' "$(head -c 410000 /dev/zero | tr '\0' x)" | "$ddbst" transact "$catalog" 2>&1)
if [[ $out == 'ddbst: line 1: Product: the Product would be at least 410058 bytes after this update (its key and the values it writes); DynamoDB stores at most 409600 per item' ]]; then passed=$((passed + 1)); else echo "FAIL update-past-400kb: ${out:0:300}"; failed=$((failed + 1)); fi

# Answers read back: items as JSON lines, then the sealed cursor.
key=$(printf '%064x' 7)
out=$(DDBST_CURSOR_KEY=$key "$ddbst" page "$saas" listUsers orgId=1 < "$src/tests/data/responses/local-query-users-page1.json" 2>&1)
if [[ $(printf '%s\n' "$out" | head -1) == '{"entity":"User","item":{"orgId":"1","userId":"2","email":"Ann@X.com","role":"admin","name":"Ann"}}' &&
      $(printf '%s\n' "$out" | tail -1) =~ ^\{\"cursor\":\"[A-Za-z0-9_-]+\"\}$ ]]; then
  passed=$((passed + 1))
else
  echo "FAIL page-users: $out"; failed=$((failed + 1))
fi
cursor=$(printf '%s\n' "$out" | tail -1 | sed 's/{"cursor":"\(.*\)"}/\1/')
out=$(DDBST_CURSOR_KEY=$key "$ddbst" query "$saas" listUsers orgId=1 --cursor "$cursor")
if [[ $out == *'"ExclusiveStartKey":{"PK":{"S":"ORG#1"},"SK":{"S":"USER#'* ]]; then passed=$((passed + 1)); else echo "FAIL query-cursor: $out"; failed=$((failed + 1)); fi
out=$(DDBST_CURSOR_KEY=$key "$ddbst" query "$saas" listUsers orgId=2 --cursor "$cursor" 2>&1)
if [[ $out == 'ddbst: cursor: '* ]]; then passed=$((passed + 1)); else echo "FAIL cursor-other-tenant: $out"; failed=$((failed + 1)); fi
out=$(DDBST_CURSOR_KEY=$(printf '%064x' 8) "$ddbst" query "$saas" listUsers orgId=1 --cursor "$cursor" 2>&1)
if [[ $out == 'ddbst: cursor: '* ]]; then passed=$((passed + 1)); else echo "FAIL cursor-other-key: $out"; failed=$((failed + 1)); fi
# Issue 16: cursor refusals a person can act on, and one message each.
out=$(DDBST_CURSOR_KEY=$key "$ddbst" query "$saas" listUsers orgId=1 --cursor abcdefgh 2>&1)
if [[ $out == 'ddbst: cursor: not a ddbst cursor: its first byte says format 6, and ddbst makes and reads format 1' ]]; then passed=$((passed + 1)); else echo "FAIL cursor-not-a-cursor: $out"; failed=$((failed + 1)); fi
out=$("$ddbst" query "$saas" listUsers orgId=1 --cursor "$cursor" 2>&1)
if [[ $out == 'ddbst: cursorKeys: pattern listUsers: the model'"'"'s cursors are sealed (table.cursors) and no cursor keys were given; configure keys, or declare "cursors": "unsealed" for development' ]]; then passed=$((passed + 1)); else echo "FAIL cursor-sealed-model-no-keys: $out"; failed=$((failed + 1)); fi
out=$("$ddbst" stream "$saas" < "$src/tests/data/responses/local-stream-event.json" | head -1)
if [[ $out == '{"eventName":"INSERT","sequenceNumber":"000000000000000000001",'*'"entity":"Organisation"'* ]]; then passed=$((passed + 1)); else echo "FAIL stream: $out"; failed=$((failed + 1)); fi

# Conditions, filters and update actions in the text form (docs/conditions.md).
expect update-condition 0 'UpdateItem	{"TableName":"saas-api-dev","Key":{"PK":{"S":"ORG#o1"},"SK":{"S":"PROJECT#2026-03-14T09:00:00Z#p1"}},"UpdateExpression":"SET #n0 = :v0","ConditionExpression":"(attribute_exists(#n1)) AND (#n2 = :v1)","ExpressionAttributeNames":{"#n0":"name","#n1":"PK","#n2":"status"},"ExpressionAttributeValues":{":v0":{"S":"Apollo"},":v1":{"S":"active"}}}' '' \
  -- update "$saas" Project orgId=o1 createdAt=2026-03-14T09:00:00Z projectId=p1 --set name=Apollo --condition 'status = "active"'
expect update-actions 0 'UpdateItem	{"TableName":"saas-api-dev","Key":{"PK":{"S":"PROJECT#p1"},"SK":{"S":"EVENT#2026-03-14T09:00:00Z#01HZ0000000000000000000010"}},"UpdateExpression":"SET #n0.#n1 = #n0.#n1 + :v0 REMOVE #n0.#n2 ADD #n0.#n3 :v1 DELETE #n0.#n4 :v2","ConditionExpression":"attribute_exists(#n5)","ExpressionAttributeNames":{"#n0":"payload","#n1":"count","#n2":"old","#n3":"tags","#n4":"gone","#n5":"PK"},"ExpressionAttributeValues":{":v0":{"N":"1"},":v1":{"SS":["x"]},":v2":{"SS":["y"]}}}' '' \
  -- update "$saas" Event projectId=p1 ts=2026-03-14T09:00:00Z eventId=01HZ0000000000000000000010 --set 'payload.count = payload.count + :n' --param n=1 --remove payload.old --add 'payload.tags ["x"]' --delete 'payload.gone ["y"]'
expect query-filter 0 'Query	{"TableName":"saas-api-dev","KeyConditionExpression":"#n0 = :v0 AND begins_with(#n1, :v1)","FilterExpression":"#n2 = :v2","ExpressionAttributeNames":{"#n0":"PK","#n1":"SK","#n2":"type"},"ExpressionAttributeValues":{":v0":{"S":"PROJECT#p1"},":v1":{"S":"EVENT#"},":v2":{"S":"deploy"}},"Limit":100}' '' \
  -- query "$saas" listEvents projectId=p1 --filter 'type = :t' --param t=deploy
expect condition-syntax 2 '' 'ddbst: condition: at character 10: expected an attribute or a value, found the end' \
  -- delete "$saas" Project orgId=o1 createdAt=2026-03-14T09:00:00Z projectId=p1 --condition 'status = '
expect condition-did-you-mean 2 '' 'ddbst: condition: at character 1: Project has no attribute stauts; did you mean status?' \
  -- delete "$saas" Project orgId=o1 createdAt=2026-03-14T09:00:00Z projectId=p1 --condition 'stauts = "active"'
expect filter-not-projected 2 '' 'ddbst: filter: userByEmail reads index GSI1, which does not project role (KEYS_ONLY)' \
  -- query "$saas" userByEmail email=a@x.com --filter 'role = "admin"'

expect no-verb 2 '' 'usage:' --
expect unknown-verb 2 '' "unknown verb 'frobnicate'" -- frobnicate
expect version 0 'ddbst 0.2.0' '' -- --version

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
