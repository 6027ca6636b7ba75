public import ImageKit

/// How much fine detail a picture holds, measured on a thumbnail: the busiest tenth of its pixels'
/// Laplacian (how much a pixel's brightness differs from its four neighbours').
///
/// The scene model was trained on photos of things, and a thing in a photo brings edges and texture.
/// A picture made of smooth gradients and soft shapes (a drawn or generated landscape, a soft
/// illustration) gives the model nothing but colour and broad stripes, and it then names an object
/// with confidence that is not there (stripes on a drawn hill read as a picket fence at 99%). Below
/// ``minimumForScene`` the description says nothing the scene model saw: no subject, no setting.
///
/// Measured on 256-pixel thumbnails (`Docs/Vision.md`): 77 real photos (the caption and the vision
/// samples) have 17.6 or more (median 58.5); the demo album's 18 generated landscapes without a face
/// 6.8 to 8.0. The gate sits between the two, near their geometric mean.
public enum PictureDetail {
    /// The longest side of the thumbnail detail is measured on.
    public static let sampleSize = 256
    /// The least detail at which the scene model's subject and setting are said.
    public static let minimumForScene = 12.0

    /// The 90th percentile of the absolute Laplacian of `image`'s luma (Rec. 601, 0...255 scale);
    /// 0 for an image under 3 pixels on a side or without any detail.
    public static func measure(_ image: Image) -> Double {
        let responses = LumaPlane(image).laplacian().map(abs).sorted()
        return responses.isEmpty ? 0 : responses[responses.count * 9 / 10]
    }
}
