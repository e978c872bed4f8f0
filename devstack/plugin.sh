#!/bin/bash
# devstack/plugin.sh: devstack sources this at each phase, as
#   plugin.sh stack install|post-config|extra|test-config, unstack, clean
# with devstack's functions and our settings already loaded. What each
# phase does is in lib/watcher-ha.

# shellcheck source-path=SCRIPTDIR source=lib/watcher-ha
source "$(dirname "${BASH_SOURCE[0]}")/lib/watcher-ha"

# shellcheck disable=SC2086
if is_service_enabled $WATCHER_HA_SERVICES; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing watcher_ha"
        install_watcher_ha
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring watcher_ha"
        configure_watcher_ha
        if is_service_enabled key; then
            create_watcher_ha_accounts
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        # After post-config, so that local.conf's post-config sections
        # are in the file the migrations and the daemons read.
        echo_summary "Initializing and starting watcher_ha"
        init_watcher_ha
        start_watcher_ha
    elif [[ "$1" == "stack" && "$2" == "test-config" ]]; then
        if is_service_enabled tempest; then
            configure_tempest_for_watcher_ha
        fi
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_watcher_ha
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_watcher_ha
    fi
fi
