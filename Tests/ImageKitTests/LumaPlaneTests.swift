import Testing
import ImageKit

@Suite("Luma plane")
struct LumaPlaneTests {
    @Test("luma is Rec. 601 on 0...255; the Laplacian is four times a pixel less its four neighbours, off the border only")
    func lumaAndLaplacian() throws {
        // 3x3, black but for a white centre and one pure red corner.
        var pixels = [UInt8](repeating: 0, count: 3 * 3 * 3)
        pixels[(1 * 3 + 1) * 3 ..< (1 * 3 + 1) * 3 + 3] = [255, 255, 255]
        pixels[0] = 255
        let plane = LumaPlane(try Image(width: 3, height: 3, pixelFormat: .rgb8, pixels: pixels))
        #expect(plane.width == 3 && plane.height == 3 && plane.values.count == 9)
        #expect(abs(plane.values[0] - 0.299 * 255) < 1e-9 && abs(plane.values[4] - 255) < 1e-9 && plane.values[8] == 0)
        let laplacian = plane.laplacian()
        #expect(laplacian.count == 1 && abs(laplacian[0] - 4 * 255) < 1e-9, "the corner is no neighbour of the centre")
        // Too small for a Laplacian.
        #expect(LumaPlane(try Image(width: 2, height: 5, pixelFormat: .rgb8, pixels: [UInt8](repeating: 9, count: 30))).laplacian().isEmpty)
    }
}
