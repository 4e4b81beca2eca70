#!/usr/bin/env bash
# http.sh ZKARENA [JOBS] - `zkarena serve`, the HTTP/JSON job API, with curl against real servers
# on loopback (random ports) over a CPU pipeline: every endpoint; tokens (none, wrong, not
# Bearer: 401; a token file readable by others: the server refuses to start); oversized (413,
# declared and chunked) and malformed bodies and queries (400 with one JSON error naming the
# field); the queue limit (429 with Retry-After); a client that disconnects mid-upload (nothing
# queued, no spool directory left, the server answers on); the Unix socket listener without a
# token (submitter uid:N); another token sees none of alice's jobs; JOBS (default 200)
# concurrent submits, each DONE once with a proof that verifies; HTTPS with a certificate made
# here by openssl.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
JOBS=${2:-200}
SRV_PID=
cleanup_h() {
	[ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	rm -f /dev/shm/zkarena-"$NAME".gpud*-status
	cleanup
}
trap cleanup_h EXIT
command -v curl >/dev/null || { echo "http.sh: curl not installed (scripts/install-deps.sh)"; exit 1; }
keys bn128 200 bn && keys bn128 100 bn2 || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 4 --slot-bytes 1M --jobs 1024
TA=alice-0123456789abcdef TB=bob-0123456789abcdef0
printf '# name token\nalice %s\n\nbob %s\n' "$TA" "$TB" >"$T/tokens"
chmod 600 "$T/tokens"
SP=$T/spool
# serve ARGS...: starts `zkarena serve` on 127.0.0.1:0; sets SRV_PID and URL (from its first line)
serve() {
	"$ZK" serve "$NAME" --listen 127.0.0.1:0 --token-file "$T/tokens" --spool "$SP" --key "$T/bn.zkey" "$@" >"$T/srv.log" 2>&1 &
	SRV_PID=$!
	local i
	URL=
	for i in $(seq 1 100); do
		URL=$(sed -n 's|^zkarena serve: arena .* on \(https\{0,1\}://[0-9.]*:[0-9]*\)/v1/$|\1|p' "$T/srv.log")
		[ -n "$URL" ] && return 0
		kill -0 "$SRV_PID" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}
stop_serve() {
	kill -TERM "$SRV_PID" 2>/dev/null
	wait "$SRV_PID" 2>/dev/null
	local rc=$?
	SRV_PID=
	return $rc
}
# api METHOD PATH [CURL ARGS...]: the status code on stdout, the body in $T/body, headers in
# $T/hdr; the token is $TOK (alice's unless set)
TOK=$TA
api() {
	local m=$1 p=$2
	shift 2
	curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOK" "$@" "$URL$p"
}
# js EXPR: EXPR over the JSON in $T/body as j
js() { node -e "const j=JSON.parse(require('fs').readFileSync('$T/body','utf8'));console.log($1)"; }
want() { # want CODE DESCRIPTION GOT [FIELD]: the code, and for errors the field named
	local c=$1 what=$2 got=$3 field=${4:-}
	if [ "$got" != "$c" ]; then ko "$what: HTTP $got, wanted $c: $(head -c 300 "$T/body")"; return; fi
	if [ -n "$field" ] && [ "$(js 'j.field+"|"+Object.keys(j).length+"|"+typeof j.error')" != "$field|2|string" ]; then
		ko "$what: HTTP $c but not one error naming '$field': $(head -c 300 "$T/body")"
		return
	fi
	ok "$what (HTTP $c${field:+, field $field})"
}

# ---- the token file's mode, and bad options
chmod 644 "$T/tokens"
"$ZK" serve "$NAME" --listen 127.0.0.1:0 --token-file "$T/tokens" --spool "$SP" >"$T/o.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "tokens: mode 0644: readable by group or others" "$T/o.log" && ok "a token file readable by others: refused (exit 2)" || ko "token file 0644: rc $rc: $(cat "$T/o.log")"
chmod 600 "$T/tokens"
expect 2 "--listen without --token-file refused" "$ZK" serve "$NAME" --listen 127.0.0.1:0 --spool "$SP"
check "  saying a token is needed" grep -q "needs --token-file" "$T/out"
expect 2 "an unknown option: one line" "$ZK" serve "$NAME" --bogus
check "  naming it and --help" sh -c "[ \$(wc -l <'$T/out') = 1 ] && grep -q \"unknown option '--bogus' (see zkarena serve --help)\" '$T/out'"

# ---- the queue limit, with no pipeline running: one job queues, the next gets 429
serve --max-queue 1 || ko "serve did not start: $(cat "$T/srv.log")"
want 202 "POST /v1/jobs by key path" "$(api POST "/v1/jobs?key=$T/bn.zkey" --data-binary @"$T/bn.wtns" -H 'Content-Type: application/octet-stream')"
id1=$(js j.id)
[ "$(js j.submitter)" = alice ] && ok "  submitter recorded: alice" || ko "submitter: $(cat "$T/body")"
want 429 "POST over the queue limit" "$(api POST "/v1/jobs?key=$T/bn.zkey" --data-binary @"$T/bn.wtns")"
grep -qi '^Retry-After: 1' "$T/hdr" && ok "  with Retry-After" || ko "no Retry-After: $(cat "$T/hdr")"
want 200 "GET /v1/jobs/ID" "$(api GET "/v1/jobs/$id1")"
[ "$(js j.state)" = SUBMITTED ] && ok "  SUBMITTED" || ko "state: $(cat "$T/body")"
want 409 "GET /v1/jobs/ID/proof before DONE" "$(api GET "/v1/jobs/$id1/proof")" id
want 202 "POST /v1/jobs/ID/cancel" "$(api POST "/v1/jobs/$id1/cancel")"
stop_serve && ok "serve stops on SIGTERM with exit 0" || ko "serve exit status on SIGTERM"

# ---- the pipeline, and the server with TCP and Unix listeners
start_run 2
serve --unix "$T/api.sock" --max-body 64K || ko "serve did not start: $(cat "$T/srv.log")"
for i in $(seq 1 100); do
	api GET "/v1/jobs/$id1" >/dev/null
	[ "$(js j.state)" = FAILED ] && break
	sleep 0.1
done
[ "$(js j.state)|$(js j.reason)" = "FAILED|cancelled" ] && ok "the cancelled job FAILED: cancelled (seen by a restarted server)" || ko "cancelled job: $(cat "$T/body")"
want 409 "GET proof of a FAILED job" "$(api GET "/v1/jobs/$id1/proof")" id
want 200 "GET /v1/keys" "$(api GET /v1/keys)"
[ "$(js 'j.keys.filter(k=>k.state==="loaded").length')" = 1 ] && kid=$(js 'j.keys[0].id') && ok "  one key loaded, id $kid" || ko "keys: $(cat "$T/body")"
want 202 "POST /v1/jobs by key id, priority 5" "$(api POST "/v1/jobs?key=$kid&priority=5" --data-binary @"$T/bn.wtns")"
id2=$(js j.id)
for i in $(seq 1 600); do
	api GET "/v1/jobs/$id2" >/dev/null
	[ "$(js j.state)" = DONE ] && break
	sleep 0.1
done
[ "$(js j.state)|$(js j.priority)" = "DONE|5" ] && ok "job $id2 DONE (priority 5)" || ko "job $id2: $(cat "$T/body")"
want 200 "GET /v1/jobs/ID/proof" "$(api GET "/v1/jobs/$id2/proof")"
js 'JSON.stringify(j.proof)' >"$T/p.json" && js 'JSON.stringify(j.public)' >"$T/pub.json"
expect 0 "  the proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/pub.json" "$T/p.json"
want 200 "GET /v1/queue" "$(api GET /v1/queue)"
[ "$(js 'typeof j.counts.DONE+"|"+j.limit')" = "number|1024" ] && ok "  counts and limit" || ko "queue: $(cat "$T/body")"
TOK=$TB
want 404 "bob cannot see alice's job" "$(api GET "/v1/jobs/$id2")" id
want 404 "bob cannot cancel alice's job" "$(api DELETE "/v1/jobs/$id2")" id
TOK=$TA
want 409 "cancel of a DONE job" "$(api POST "/v1/jobs/$id2/cancel")" id
want 200 "DELETE a DONE job: released and removed" "$(api DELETE "/v1/jobs/$id2")"
want 404 "  then it is gone" "$(api GET "/v1/jobs/$id2")" id

# ---- tokens
want 401 "no Authorization header" "$(curl -s -o "$T/body" -w '%{http_code}' "$URL/v1/keys")" Authorization
TOK=wrong-token-0123456789
want 401 "a wrong token" "$(api GET /v1/keys)" Authorization
TOK=${TA}x
want 401 "alice's token with one character more" "$(api GET /v1/keys)" Authorization
TOK=${TA%?}
want 401 "alice's token less its last character" "$(api GET /v1/keys)" Authorization
TOK=$TA
want 401 "Basic, not Bearer" "$(curl -s -o "$T/body" -w '%{http_code}' -u alice:x "$URL/v1/keys")" Authorization
want 401 "no token on a POST with a body: nothing queued" "$(curl -s -o "$T/body" -w '%{http_code}' --data-binary @"$T/bn.wtns" "$URL/v1/jobs?key=$kid")" Authorization

# ---- bad requests: each one error naming the field
want 400 "no key" "$(api POST /v1/jobs --data-binary @"$T/bn.wtns")" key
want 400 "an unknown key (a file the node was not told about)" "$(api POST "/v1/jobs?key=$T/bn2.zkey" --data-binary @"$T/bn2.wtns")" key
want 400 "key id out of the table" "$(api POST "/v1/jobs?key=99" --data-binary @"$T/bn.wtns")" key
want 400 "priority not a number" "$(api POST "/v1/jobs?key=$kid&priority=high" --data-binary @"$T/bn.wtns")" priority
want 400 "priority out of range" "$(api POST "/v1/jobs?key=$kid&priority=5000" --data-binary @"$T/bn.wtns")" priority
head -c 3000 /dev/urandom >"$T/garbage"
want 400 "a body that is not a .wtns" "$(api POST "/v1/jobs?key=$kid" --data-binary @"$T/garbage")" body
grep -q "$SP" "$T/body" && ko "  the error shows the spool path: $(cat "$T/body")" || ok "  the error does not show the spool path"
want 400 "a witness of another circuit" "$(api POST "/v1/jobs?key=$kid" --data-binary @"$T/bn2.wtns")" body
want 400 "an empty body" "$(api POST "/v1/jobs?key=$kid" --data-binary '')" body
want 400 "input.json for a key without a witness graph" "$(api POST "/v1/jobs?key=$kid" -H 'Content-Type: application/json' --data-binary '{"a":1}')" Content-Type
want 415 "an unknown Content-Type" "$(api POST "/v1/jobs?key=$kid" -H 'Content-Type: text/plain' --data-binary @"$T/bn.wtns")" Content-Type
head -c 100000 /dev/urandom >"$T/big"
want 413 "a body over --max-body (declared)" "$(api POST "/v1/jobs?key=$kid" --data-binary @"$T/big")" body
want 413 "a body over --max-body (chunked)" "$(api POST "/v1/jobs?key=$kid" -H 'Transfer-Encoding: chunked' --data-binary @"$T/big")" body
want 404 "an unknown path" "$(api GET /v2/x)"
want 404 "a job id that is not a number" "$(api GET /v1/jobs/abc)"
want 405 "GET /v1/jobs" "$(api GET /v1/jobs)"
want 405 "PUT /v1/keys" "$(api PUT /v1/keys)"

# ---- a client that goes away mid-upload: nothing queued, no spool directory left
before=$(ls "$SP/by-id" | wc -l)
hp=${URL#http://}
exec 3<>"/dev/tcp/${hp%:*}/${hp#*:}"
printf 'POST /v1/jobs?key=%s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 50000\r\n\r\n' "$kid" "$TA" >&3
head -c 3000 "$T/bn.wtns" >&3
sleep 0.3
[ "$(ls "$SP/jobs" | wc -l)" -ge 1 ] && ok "  mid-upload: a spool directory exists" || ko "mid-upload: no spool directory"
exec 3>&-
for i in $(seq 1 50); do [ "$(ls "$SP/jobs" | wc -l)" = "$before" ] && break; sleep 0.1; done
[ "$(ls "$SP/jobs" | wc -l)" = "$before" ] && [ "$(ls "$SP/by-id" | wc -l)" = "$before" ] && ok "a client gone mid-upload: nothing queued, its spool directory removed" || ko "after the disconnect: $(ls "$SP/jobs" | wc -l) dirs, $(ls "$SP/by-id" | wc -l) jobs, wanted $before"
want 200 "  the server answers on" "$(api GET /v1/queue)"

# ---- the Unix socket: no token needed, the submitter is the peer's uid
c=$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$T/api.sock" --data-binary @"$T/bn.wtns" "http://x/v1/jobs?key=$kid")
want 202 "POST on the Unix socket without a token" "$c"
[ "$(js j.submitter)" = "uid:$(id -u)" ] && ok "  submitter uid:$(id -u)" || ko "unix submitter: $(cat "$T/body")"

# ---- JOBS concurrent submits: each DONE once, every proof verifies
mkdir -p "$T/c"
for i in $(seq 1 "$JOBS"); do
	curl -s -o "$T/c/$i.json" -w '%{http_code}\n' -H "Authorization: Bearer $TA" --data-binary @"$T/bn.wtns" "$URL/v1/jobs?key=$kid" >"$T/c/$i.code" &
done
wait_bg=$(jobs -p | grep -v "^$RUN_PID\$" | grep -v "^$SRV_PID\$")
# shellcheck disable=SC2086
wait $wait_bg 2>/dev/null
n202=$(cat "$T"/c/*.code | grep -c '^202$')
[ "$n202" = "$JOBS" ] && ok "$JOBS concurrent submits: all 202" || ko "$n202 of $JOBS concurrent submits got 202: $(cat "$T"/c/*.code | sort | uniq -c | tr '\n' ' ')"
for i in $(seq 1 "$JOBS"); do node -e "console.log(JSON.parse(require('fs').readFileSync('$T/c/$i.json','utf8')).id)" 2>/dev/null; done >"$T/ids"
[ "$(sort -u "$T/ids" | wc -l)" = "$JOBS" ] && ok "  $JOBS distinct job ids" || ko "ids: $(sort -u "$T/ids" | wc -l) distinct"
done_n=0 verified=0 once=0
# each job waited for and its proof fetched over HTTP; then one `arena status` and one node
# process for all of them (a node start per job made this loop most of the test's time)
while read -r id; do
	"$ZK" wait "$NAME" "$id" --timeout 300 >/dev/null 2>&1 && done_n=$((done_n + 1))
	curl -s -o "$T/c/$id.body" -w '%{http_code}' -H "Authorization: Bearer $TA" "$URL/v1/jobs/$id/proof" >"$T/c/$id.pcode"
done <"$T/ids"
"$ZK" arena status "$NAME" --json --all-jobs >"$T/all.json" 2>/dev/null
once=$(node -e "
const fs=require('fs'),T='$T',all=JSON.parse(fs.readFileSync(T+'/all.json','utf8'));
let once=0;
for (const id of fs.readFileSync(T+'/ids','utf8').split('\n').filter(Boolean)) {
  const r=all.jobs.find(x=>String(x.id)===id); if (r && r.prove_count===1) once++;
  if (fs.readFileSync(T+'/c/'+id+'.pcode','utf8')!=='200') continue;
  const j=JSON.parse(fs.readFileSync(T+'/c/'+id+'.body','utf8'));
  fs.writeFileSync(T+'/c/'+id+'.p.json',JSON.stringify(j.proof));
  fs.writeFileSync(T+'/c/'+id+'.pub.json',JSON.stringify(j.public));
}
console.log(once)")
while read -r id; do
	[ -f "$T/c/$id.p.json" ] || continue
	"$ZK" verify "$T/bn.vk.json" "$T/c/$id.pub.json" "$T/c/$id.p.json" >"$T/v.out" 2>&1 && verified=$((verified + 1)) ||
		echo "job $id: $(cat "$T/v.out") $(head -c 300 "$T/c/$id.body")"
done <"$T/ids"
[ "$done_n" = "$JOBS" ] && ok "  all $JOBS DONE" || ko "$done_n of $JOBS DONE"
[ "$once" = "$JOBS" ] && ok "  each proved once" || ko "$once of $JOBS proved exactly once"
[ "$verified" = "$JOBS" ] && ok "  all $JOBS proofs from GET .../proof verify" || ko "$verified of $JOBS proofs verify"
stop_serve

# ---- HTTPS with a self-signed certificate made here
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
		-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
	if serve --tls-cert "$T/cert.pem" --tls-key "$T/key.pem"; then
		case $URL in https://*) ok "serve with TLS says https://" ;; *) ko "TLS URL: $URL" ;; esac
		want 200 "HTTPS GET /v1/keys (certificate checked by curl)" "$(api GET /v1/keys --cacert "$T/cert.pem")"
		want 202 "HTTPS POST /v1/jobs" "$(api POST "/v1/jobs?key=$kid" --cacert "$T/cert.pem" --data-binary @"$T/bn.wtns")"
		c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TA" "http://${URL#https://}/v1/keys")
		[ "$c" != 200 ] && ok "plain HTTP to the TLS port gets no answer ($c)" || ko "plain HTTP answered 200 on the TLS port"
		stop_serve
	else
		ko "serve with TLS did not start: $(cat "$T/srv.log")"
	fi
	expect 2 "--tls-cert without --tls-key refused" "$ZK" serve "$NAME" --listen 127.0.0.1:0 --token-file "$T/tokens" --spool "$SP" --tls-cert "$T/cert.pem"
else
	ko "openssl not installed (scripts/install-deps.sh): TLS not tested"
fi
stop_run

# ---- [http] of a settings file: the same API inside `zkarena run`
printf '[run]\nbackend = cpu\n[http]\nlisten = 127.0.0.1:0\ntoken_file = %s\nspool = %s\nkeys = %s\nmax_queue = 50\nunix = %s\nunix_group = %s\n' \
	"$T/tokens" "$T/spool2" "$T/bn.zkey" "$T/run.sock" "$(id -gn)" >"$T/h.conf"
expect 0 "config check: an [http] section" "$ZK" config check "$T/h.conf"
printf '[http]\nlisten = localhost\ntoken_file = rel/tokens\nmax_queue = 0\nkeys = /a,b\ncolour = red\nunix_group = a/b\n' >"$T/hbad.conf"
"$ZK" config check "$T/hbad.conf" >"$T/hc.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q ":2: \[http\] listen = 'localhost'" "$T/hc.out" && grep -q ":3: \[http\] token_file = 'rel/tokens'" "$T/hc.out" &&
	grep -q ":4: \[http\] max_queue = '0'" "$T/hc.out" && grep -q ":5: \[http\] keys = '/a,b'" "$T/hc.out" && grep -q ":6: \[http\] colour: unknown key" "$T/hc.out" && grep -q ":7: \[http\] unix_group = 'a/b'" "$T/hc.out" &&
	ok "config check reports each bad [http] line" || ko "config check [http]: rc $rc: $(cat "$T/hc.out")"
RUN_ARGS="--config $T/h.conf"
start_run 1
URL=
for i in $(seq 1 100); do
	URL=$(sed -n 's|^zkarena run: job API on \(http://[0-9.]*:[0-9]*\)/v1/$|\1|p' "$T/run.log")
	[ -n "$URL" ] && break
	sleep 0.05
done
[ -n "$URL" ] && ok "zkarena run --config with [http]: the job API starts ($URL)" || ko "no job API in run.log: $(tail -5 "$T/run.log")"
[ "$(stat -c '%G %a' "$T/run.sock" 2>/dev/null)" = "$(id -gn) 660" ] && ok "  its Unix socket: group $(id -gn) (unix_group), mode 0660" || ko "run.sock: $(stat -c '%G %a' "$T/run.sock" 2>&1)"
want 202 "  POST /v1/jobs through zkarena run's API" "$(api POST "/v1/jobs?key=$T/bn.zkey" --data-binary @"$T/bn.wtns")"
id3=$(js j.id)
expect 0 "  that job DONE" "$ZK" wait "$NAME" "$id3" --timeout 120
want 200 "  its proof" "$(api GET "/v1/jobs/$id3/proof")"
stop_run
chmod 644 "$T/tokens"
start_run 1
for i in $(seq 1 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$RUN_PID" 2>/dev/null && kill -TERM "$RUN_PID"
wait "$RUN_PID"
rc=$?
RUN_PID=
RUN_ARGS=
[ "$rc" != 0 ] && grep -q "\[http\]: --token-file .*mode 0644" "$T/run.log" && ok "zkarena run refuses [http] with a token file readable by others (exit $rc)" || ko "run with a 0644 token file: rc $rc: $(tail -3 "$T/run.log")"
finish
