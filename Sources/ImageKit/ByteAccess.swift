/// `Array.withUnsafeBytes` with a typed-throwing body: the standard library's
/// version is `rethrows`, which widens every error to `any Error`.
func withRawBytes<Result>(
    _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ImageError) -> Result
) throws(ImageError) -> Result {
    let outcome: Swift.Result<Result, ImageError> = bytes.withUnsafeBytes { raw in
        do throws(ImageError) {
            return .success(try body(raw))
        } catch {
            return .failure(error)
        }
    }
    return try outcome.get()
}
