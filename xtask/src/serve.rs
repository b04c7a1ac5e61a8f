//! `cargo xtask serve`: install what is missing, then let trunk build and
//! serve the app with live reload.

use anyhow::Result;

use crate::proc::{run, step};
use crate::tools::{check_port_free, setup_build, trunk_cmd};

pub fn serve(port: u16) -> Result<()> {
    check_port_free(port)?;
    setup_build()?;
    step(&format!(
        "serving the app at http://127.0.0.1:{port}/ (Ctrl-C stops it)"
    ));
    let mut cmd = trunk_cmd()?;
    cmd.args([
        "serve",
        "--address",
        "127.0.0.1",
        "--port",
        &port.to_string(),
    ]);
    run(&mut cmd)
}
