# shellcheck shell=bash
# A stand-in for the devstack functions devstack/ calls, for
# test_devstack_plugin.py: the ini functions and the database really work
# (on a file and on the local MariaDB); keystone, systemd and pip are only
# recorded, one tab-separated line per call in $STANDIN_LOG. With
# STANDIN_START=1, run_process also starts the command in the background
# and stop_process stops it. Same names and arguments as devstack's.
#
# Read from the environment, as devstack sets them: ENABLED_SERVICES,
# DISABLED_SERVICES, STACK_USER, DATABASE_HOST, DATABASE_USER, RABBIT_*,
# KEYSTONE_SERVICE_URI, SERVICE_* ...; and the stand-in's own:
# STANDIN_LOG, STANDIN_DIR (pids and process logs), STANDIN_BIN_DIR (the
# venv's bin), STANDIN_DB_PREFIX (prepended to the database names, so that
# concurrent runs do not share one).

function _record {
    local IFS=$'\t'
    echo "$*" >>"$STANDIN_LOG"
}

# --- functions-common ---------------------------------------------------

# As devstack's: a service is enabled when listed, or when its
# is_<service>_enabled function says so (lib/cinder's: any c-* service).
function is_service_enabled {
    local service
    for service in "$@"; do
        if [[ ",$ENABLED_SERVICES," == *",$service,"* ]]; then
            return 0
        fi
        if type "is_${service}_enabled" >/dev/null 2>&1 && \
                "is_${service}_enabled"; then
            return 0
        fi
    done
    return 1
}

# --- lib/cinder ---------------------------------------------------------

function is_cinder_enabled {
    [[ ",${DISABLED_SERVICES:-}" =~ ,"cinder" ]] && return 1
    [[ ",$ENABLED_SERVICES" =~ ,"c-" ]] && return 0
    return 1
}

# A service local.conf disabled (DISABLED_SERVICES) stays disabled.
function enable_service {
    local service
    for service in "$@"; do
        if [[ ",${DISABLED_SERVICES:-}," == *",$service,"* ]]; then
            continue
        fi
        if ! is_service_enabled "$service"; then
            ENABLED_SERVICES=${ENABLED_SERVICES:+$ENABLED_SERVICES,}$service
        fi
    done
}

function echo_summary {
    echo "$@"
}

function die {
    local line=$1
    shift
    echo "ERROR (line $line): $*" >&2
    exit 1
}

function trueorfalse {
    local value=${!2:-}
    case "$value" in
        1|[yY]es|YES|[tT]rue|TRUE) echo True ;;
        0|[nN]o|NO|[fF]alse|FALSE) echo False ;;
        *) echo "$1" ;;
    esac
}

function ipv6_unquote {
    echo "${1//[\[\]]/}"
}

# The commands the plugin runs with sudo run as the test's user.
function sudo {
    "$@"
}

# --- inc/ini-config: a real ini file --------------------------------------

# Shared by iniset and iniget: a section header, and an option's name.
_INI_AWK_FUNCTIONS='
    function is_header(line) { return line ~ /^\[[^]]*\][ \t]*$/ }
    function key_of(line,   key) {
        if (!index(line, "=")) return ""
        key = substr(line, 1, index(line, "=") - 1)
        gsub(/^[ \t]+|[ \t]+$/, "", key)
        return key
    }'

# iniset [-sudo] file section option value: replace the option's line in
# the section (dropping any repeat of it), or add the option at the end of
# the section, adding the section at the end of the file (created if
# missing) when it is not there. Values are written as given.
function iniset {
    if [[ "$1" == "-sudo" ]]; then
        shift
    fi
    local file=$1 section=$2 option=$3 value=$4
    touch "$file"
    SECTION=$section OPTION=$option VALUE=$value awk "$_INI_AWK_FUNCTIONS"'
        BEGIN {
            target = "[" ENVIRON["SECTION"] "]"
            entry = ENVIRON["OPTION"] " = " ENVIRON["VALUE"]
        }
        is_header($0) {
            if (inside && !done) { print entry; done = 1 }
            inside = ($0 == target)
            if (inside) seen = 1
            print
            next
        }
        inside && key_of($0) == ENVIRON["OPTION"] {
            if (!done) { print entry; done = 1 }
            next
        }
        { print }
        END {
            if (inside && !done) print entry
            if (!seen) { print ""; print target; print entry }
        }' "$file" >"$file.new"
    mv "$file.new" "$file"
}

# iniget file section option: the option's value in the section, or
# nothing.
function iniget {
    local file=$1 section=$2 option=$3
    SECTION=$section OPTION=$option awk "$_INI_AWK_FUNCTIONS"'
        is_header($0) { inside = ($0 == "[" ENVIRON["SECTION"] "]"); next }
        inside && key_of($0) == ENVIRON["OPTION"] {
            value = substr($0, index($0, "=") + 1)
            sub(/^[ \t]+/, "", value)
            print value
            exit
        }' "$file"
}

# --- inc/python -----------------------------------------------------------

function get_python_exec_prefix {
    echo "$STANDIN_BIN_DIR"
}

# The project is already installed (editable) in the venv the test runs.
function setup_develop {
    _record setup_develop "$@"
}

function pip_install {
    _record pip_install "$@"
}

# --- lib/database: a real database on the local MariaDB ---------------------

function database_connection_url {
    echo "mysql+pymysql://$DATABASE_USER@$DATABASE_HOST/${STANDIN_DB_PREFIX}$1?charset=utf8mb4"
}

function recreate_database {
    _record recreate_database "$1"
    "$STANDIN_BIN_DIR/python" - "${STANDIN_DB_PREFIX}$1" <<'PYTHON'
import os
import sys

import pymysql

host, _, port = os.environ['DATABASE_HOST'].partition(':')
conn = pymysql.connect(host=host, port=int(port or 3306),
                       user=os.environ['DATABASE_USER'], autocommit=True)
with conn.cursor() as cur:
    cur.execute('DROP DATABASE IF EXISTS `%s`' % sys.argv[1])
    cur.execute('CREATE DATABASE `%s` CHARACTER SET utf8mb4' % sys.argv[1])
PYTHON
}

# --- lib/rpc_backend --------------------------------------------------------

function iniset_rpc_backend {
    local file=$2 section=${3:-DEFAULT} vhost=$4
    iniset "$file" "$section" transport_url \
        "rabbit://$RABBIT_USERID:$RABBIT_PASSWORD@$RABBIT_HOST:5672/$vhost"
}

# --- lib/keystone -----------------------------------------------------------

function configure_keystoneauth {
    local file=$1 user=$2 section=$3
    iniset "$file" "$section" auth_type password
    iniset "$file" "$section" interface public
    iniset "$file" "$section" auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$file" "$section" username "$user"
    iniset "$file" "$section" password "$SERVICE_PASSWORD"
    iniset "$file" "$section" user_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$file" "$section" project_name "$SERVICE_PROJECT_NAME"
    iniset "$file" "$section" project_domain_name "$SERVICE_DOMAIN_NAME"
}

function configure_keystone_authtoken_middleware {
    local file=$1 user=$2 section=${3:-keystone_authtoken}
    configure_keystoneauth "$file" "$user" "$section"
    iniset "$file" "$section" www_authenticate_uri "$KEYSTONE_SERVICE_URI"
    iniset "$file" "$section" memcached_servers "$MEMCACHE_SERVERS"
}

function create_service_user {
    _record create_service_user "$@"
}

function get_or_create_service {
    _record get_or_create_service "$@"
    echo "service-$2"
}

function get_or_create_endpoint {
    _record get_or_create_endpoint "$@"
}

# --- functions, lib/apache: logging, uwsgi, processes -----------------------

function setup_logging {
    _record setup_logging "$@"
}

function write_uwsgi_config {
    local conf=$1 wsgi=$2 url=$3 http=$4 name=$5
    _record write_uwsgi_config "$@"
    rm -f "$conf"
    iniset "$conf" uwsgi module "$wsgi"
    iniset "$conf" uwsgi master true
    iniset "$conf" uwsgi lazy-apps true
    if [[ -n "$http" ]]; then
        iniset "$conf" uwsgi http "$http"
    else
        iniset "$conf" uwsgi socket "/var/run/uwsgi/$name.socket"
        _record apache_proxy "$url" "$name"
    fi
}

function run_process {
    local service=$1 command=$2
    if ! is_service_enabled "$service"; then
        return 0
    fi
    _record run_process "$service" "$command"
    if [[ "${STANDIN_START:-0}" == 1 ]]; then
        # Its own session: stop_process ends the process group.
        setsid bash -c "exec $command" >"$STANDIN_DIR/$service.log" 2>&1 &
        echo "$!" >"$STANDIN_DIR/$service.pid"
    fi
}

function stop_process {
    local service=$1 pid
    if ! is_service_enabled "$service"; then
        return 0
    fi
    _record stop_process "$service"
    if [[ -f "$STANDIN_DIR/$service.pid" ]]; then
        pid=$(<"$STANDIN_DIR/$service.pid")
        kill -TERM -- "-$pid" 2>/dev/null || true
        rm -f "$STANDIN_DIR/$service.pid"
    fi
}

# Waits (when processes really start) until the URL answers anything but
# 503, as devstack's does.
function wait_for_service {
    local timeout=$1 url=$2
    _record wait_for_service "$url"
    if [[ "${STANDIN_START:-0}" != 1 ]]; then
        return 0
    fi
    "$STANDIN_BIN_DIR/python" - "$timeout" "$url" <<'PYTHON'
import sys
import time
import urllib.error
import urllib.request

deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    try:
        urllib.request.urlopen(sys.argv[2], timeout=2)
        sys.exit(0)
    except urllib.error.HTTPError as err:
        if err.code != 503:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.2)
sys.exit(1)
PYTHON
}
