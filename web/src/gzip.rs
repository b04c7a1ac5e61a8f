//! gzip through the browser's own code: the `DecompressionStream` and
//! `CompressionStream` of the Compression Streams API. A recording is
//! gzipped; unzipping it here keeps an inflater out of the wasm.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableWritablePair, Response};

// The Compression Streams API, which web-sys still puts behind
// `--cfg=web_sys_unstable_apis`; each stream is a readable and writable
// pair, all `pipeThrough` needs of it.
#[wasm_bindgen]
extern "C" {
    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;

    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;
}

/// The bytes of `bytes` gunzipped, or the browser's reason why not (a
/// truncated or damaged stream).
pub async fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let stream = DecompressionStream::new("gzip").map_err(reason)?;
    through(bytes, stream.unchecked_ref()).await
}

/// `bytes` gzipped.
pub async fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let stream = CompressionStream::new("gzip").map_err(reason)?;
    through(bytes, stream.unchecked_ref()).await
}

/// Pipes `bytes` through a transform stream and reads all that comes out.
async fn through(bytes: &[u8], pair: &ReadableWritablePair) -> Result<Vec<u8>, String> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let blob = Blob::new_with_u8_array_sequence(&parts).map_err(reason)?;
    let out = blob.stream().pipe_through(pair);
    let response = Response::new_with_opt_readable_stream(Some(&out)).map_err(reason)?;
    let buffer = JsFuture::from(response.array_buffer().map_err(reason)?)
        .await
        .map_err(reason)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// What a rejected promise or a thrown error says.
fn reason(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser refused it".into())
}
