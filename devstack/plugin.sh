#!/bin/bash
# devstack plugin for watcher_ha (stub: API only; see README.rst).

function install_watcher_ha {
    setup_develop $WATCHER_HA_DIR
}

function configure_watcher_ha {
    sudo install -d -o $STACK_USER $WATCHER_HA_CONF_DIR
    iniset $WATCHER_HA_CONF DEFAULT transport_url $(get_transport_url)
    iniset $WATCHER_HA_CONF DEFAULT auth_strategy keystone
    iniset $WATCHER_HA_CONF api host $SERVICE_LISTEN_ADDRESS
    iniset $WATCHER_HA_CONF api port $WATCHER_HA_API_PORT
    iniset $WATCHER_HA_CONF database connection \
        $(database_connection_url watcher_ha)
    configure_keystone_authtoken_middleware $WATCHER_HA_CONF watcher
}

function init_watcher_ha {
    recreate_database watcher_ha
    watcher-ha-db-manage --config-file $WATCHER_HA_CONF upgrade
}

function start_watcher_ha {
    run_process watcher-ha-api \
        "$(which watcher-ha-api) --config-file $WATCHER_HA_CONF"
}

function stop_watcher_ha {
    stop_process watcher-ha-api
}

if is_service_enabled watcher-ha-api; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        install_watcher_ha
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        configure_watcher_ha
        init_watcher_ha
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        start_watcher_ha
    fi
    if [[ "$1" == "unstack" ]]; then
        stop_watcher_ha
    fi
fi
