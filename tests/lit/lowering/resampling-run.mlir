// Numerics of the resize and conv_transpose lowerings through upstream
// MLIR's CPU pipeline and mlir-runner. Expected values are onnxruntime's
// for the same ONNX Resize / ConvTranspose nodes.
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-libm --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @nearest_asymmetric(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x6x6xf32> {
  %y = kiln.resize nearest %x {sizes = array<i64: 1, 1, 6, 6>, scales = array<f32: 1.0, 1.0, 2.0, 1.5>, coordinate_transformation_mode = 4 : i32, nearest_mode = 2 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x6x6xf32>
}

func.func @nearest_half_pixel(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x5x8xf32> {
  %y = kiln.resize nearest %x {sizes = array<i64: 1, 1, 5, 8>, scales = array<f32: 1.0, 1.0, 1.7, 2.0>, coordinate_transformation_mode = 0 : i32, nearest_mode = 1 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x5x8xf32>
}

func.func @linear_half_pixel(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32> {
  %y = kiln.resize linear %x {sizes = array<i64: 1, 1, 6, 8>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = 0 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x6x8xf32>
}

func.func @linear_align_corners(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x4x2xf32> {
  %y = kiln.resize linear %x {sizes = array<i64: 1, 1, 4, 2>, scales = array<f32: 1.0, 1.0, 1.5, 0.5>, coordinate_transformation_mode = 3 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x4x2xf32>
}

func.func @linear_symmetric(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x5x6xf32> {
  %y = kiln.resize linear %x {sizes = array<i64: 1, 1, 5, 6>, scales = array<f32: 1.0, 1.0, 1.7, 1.5>, coordinate_transformation_mode = 1 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x5x6xf32>
}

func.func @cubic_half_pixel(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32> {
  %y = kiln.resize cubic %x {sizes = array<i64: 1, 1, 6, 8>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, coordinate_transformation_mode = 0 : i32} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x6x8xf32>
}

func.func @cubic_exclude(%x: tensor<1x1x3x4xf32>) -> tensor<1x1x4x8xf32> {
  %y = kiln.resize cubic %x {sizes = array<i64: 1, 1, 4, 8>, scales = array<f32: 1.0, 1.0, 1.5, 2.0>, coordinate_transformation_mode = 2 : i32, cubic_coeff_a = -0.5 : f32, exclude_outside = true} : tensor<1x1x3x4xf32>
  return %y : tensor<1x1x4x8xf32>
}

func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  %y = kiln.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>
  return %y : tensor<1x2x6x6xf32>
}

func.func @conv_transpose_groups(%x: tensor<1x4x3xf32>, %w: tensor<4x3x2xf32>, %b: tensor<6xf32>) -> tensor<1x6x5xf32> {
  %y = kiln.conv_transpose %x, %w, %b {strides = array<i64: 3>, dilations = array<i64: 2>, pads = array<i64: 0, 4>, groups = 2 : i64} : tensor<1x4x3xf32>, tensor<4x3x2xf32>, tensor<6xf32>
  return %y : tensor<1x6x5xf32>
}

func.func @conv_transpose_crop(%x: tensor<2x1x4x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<2x1x2x2xf32> {
  %y = kiln.conv_transpose %x, %w {strides = array<i64: 1, 2>, pads = array<i64: 2, 0, 1, 3>, dilations = array<i64: 1, 2>} : tensor<2x1x4x2xf32>, tensor<1x1x2x2xf32>
  return %y : tensor<2x1x2x2xf32>
}

func.func @main_nearest_asymmetric() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @nearest_asymmetric(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x6x6xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x6x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_nearest_half_pixel() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @nearest_half_pixel(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x5x8xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x5x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_linear_half_pixel() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @linear_half_pixel(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x6x8xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x6x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_linear_align_corners() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @linear_align_corners(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x4x2xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_linear_symmetric() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @linear_symmetric(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x5x6xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x5x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_cubic_half_pixel() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @cubic_half_pixel(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x6x8xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x6x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_cubic_exclude() {
  %in0 = arith.constant dense<[[[[ 1.7886285  ,  0.43650985 ,  0.09649747 , -1.8634927  ],   [-0.27738822 , -0.35475898 , -0.082741484, -0.6270007  ],   [-0.04381817 , -0.47721803 , -1.3138647  ,  0.8846224  ]]]]> : tensor<1x1x3x4xf32>
  %r0 = call @cubic_exclude(%in0) : (tensor<1x1x3x4xf32>) -> (tensor<1x1x4x8xf32>)
  %u0 = tensor.cast %r0 : tensor<1x1x4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_conv_transpose() {
  %in0 = arith.constant dense<[[[[ 0.88131803 ,  1.709573   ,  0.050033644],   [-0.40467742 , -0.54535997 , -1.5464773  ],   [ 0.98236746 , -1.1010677  , -1.1850466  ]],  [[-0.2056499  ,  1.4861484  ,  0.23671627 ],   [-1.0237851  , -0.7129932  ,  0.625245   ],   [-0.16051336 , -0.7688364  , -0.23003072 ]]]]> : tensor<1x2x3x3xf32>
  %in1 = arith.constant dense<[[[[ 0.7450563  ,  1.9761108  , -1.2441233  ],   [-0.6264169  , -0.8037661  , -2.419083   ],   [-0.923792   , -1.0238757  ,  1.1239779  ]],  [[-0.13191423 , -1.6232854  ,  0.64667547 ],   [-0.35627076 , -1.743141   , -0.59664965 ],   [-0.5885944  , -0.8738823  ,  0.029713815]]], [[[-2.2482579  , -0.26776186 ,  1.0131835  ],   [ 0.85279787 ,  1.1081876  ,  1.1193906  ],   [ 1.4875431  , -1.1183007  ,  0.8458334  ]],  [[-1.8608896  , -0.6028851  , -1.914472   ],   [ 1.0481476  ,  1.3337379  , -0.19741468 ],   [ 1.7746451  , -0.6747275  ,  0.15061687 ]]]]> : tensor<2x2x3x3xf32>
  %in2 = arith.constant dense<[ 0.1529457, -1.0641953]> : tensor<2xf32>
  %r0 = call @conv_transpose(%in0, %in1, %in2) : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> (tensor<1x2x6x6xf32>)
  %u0 = tensor.cast %r0 : tensor<1x2x6x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_conv_transpose_groups() {
  %in0 = arith.constant dense<[[[ 0.43794662,  1.9389784 , -1.0249308 ],  [ 0.8993384 , -0.15450685,  1.7696273 ],  [ 0.48378834,  0.6762164 ,  0.64316326],  [ 0.24908671, -1.3957635 ,  1.391663  ]]]> : tensor<1x4x3xf32>
  %in1 = arith.constant dense<[[[-1.370669   ,  0.2385632  ],  [ 0.6140771  , -0.83791226 ],  [ 0.14506322 ,  1.1678823  ]], [[-0.02410447 , -0.8886574  ],  [-2.9157379  , -0.9718405  ],  [-0.59107876 , -0.5164174  ]], [[-0.95999616 ,  0.37729523 ],  [-0.5747084  , -0.109454334],  [ 0.6790716  , -0.85543716 ]], [[-0.30020607 ,  2.1581492  ],  [ 0.8742857  , -1.2935367  ],  [-0.07974094 ,  0.5644855  ]]]> : tensor<4x3x2xf32>
  %in2 = arith.constant dense<[ 1.233471  ,  0.1489864 , -0.53058213, -0.7305266 ,  0.64506197,  0.31306037]> : tensor<6xf32>
  %r0 = call @conv_transpose_groups(%in0, %in1, %in2) : (tensor<1x4x3xf32>, tensor<4x3x2xf32>, tensor<6xf32>) -> (tensor<1x6x5xf32>)
  %u0 = tensor.cast %r0 : tensor<1x6x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_conv_transpose_crop() {
  %in0 = arith.constant dense<[[[[-0.51664793, -0.18907167],   [-0.41619802,  0.72465765],   [-0.68996066,  0.48641446],   [ 0.8515189 ,  0.48624933]]], [[[-0.83423984,  1.3449924 ],   [-0.6782127 ,  0.42643508],   [-0.7533348 , -1.7441102 ],   [ 0.22575027,  0.28703517]]]]> : tensor<2x1x4x2xf32>
  %in1 = arith.constant dense<[[[[-0.07744096,  0.2760685 ],   [-0.6484109 , -0.73746485]]]]> : tensor<1x1x2x2xf32>
  %r0 = call @conv_transpose_crop(%in0, %in1) : (tensor<2x1x4x2xf32>, tensor<1x1x2x2xf32>) -> (tensor<2x1x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<2x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  call @main_nearest_asymmetric() : () -> ()
  call @main_nearest_half_pixel() : () -> ()
  call @main_linear_half_pixel() : () -> ()
  call @main_linear_align_corners() : () -> ()
  call @main_linear_symmetric() : () -> ()
  call @main_cubic_half_pixel() : () -> ()
  call @main_cubic_exclude() : () -> ()
  call @main_conv_transpose() : () -> ()
  call @main_conv_transpose_groups() : () -> ()
  call @main_conv_transpose_crop() : () -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(tensor<*xi64>) attributes {llvm.emit_c_interface}

// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}1.78863,     1.78863,     0.43651,     0.0964975,     0.0964975,     -1.86349],
// CHECK-NEXT: [1.78863,     1.78863,     0.43651,     0.0964975,     0.0964975,     -1.86349],
// CHECK-NEXT: [-0.277388,     -0.277388,     -0.354759,     -0.0827415,     -0.0827415,     -0.627001],
// CHECK-NEXT: [-0.277388,     -0.277388,     -0.354759,     -0.0827415,     -0.0827415,     -0.627001],
// CHECK-NEXT: [-0.0438182,     -0.0438182,     -0.477218,     -1.31386,     -1.31386,     0.884622],
// CHECK-NEXT: [-0.0438182,     -0.0438182,     -0.477218,     -1.31386,     -1.31386,     0.884622]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}1.78863,     1.78863,     0.43651,     0.43651,     0.0964975,     0.0964975,     -1.86349,     -1.86349],
// CHECK-NEXT: [1.78863,     1.78863,     0.43651,     0.43651,     0.0964975,     0.0964975,     -1.86349,     -1.86349],
// CHECK-NEXT: [-0.277388,     -0.277388,     -0.354759,     -0.354759,     -0.0827415,     -0.0827415,     -0.627001,     -0.627001],
// CHECK-NEXT: [-0.0438182,     -0.0438182,     -0.477218,     -0.477218,     -1.31386,     -1.31386,     0.884622,     0.884622],
// CHECK-NEXT: [-0.0438182,     -0.0438182,     -0.477218,     -0.477218,     -1.31386,     -1.31386,     0.884622,     0.884622]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}1.78863,     1.4506,     0.774539,     0.351507,     0.181501,     -0.3935,     -1.3735,     -1.86349],
// CHECK-NEXT: [1.27212,     1.01377,     0.497051,     0.191941,     0.0984389,     -0.349827,     -1.15286,     -1.55437],
// CHECK-NEXT: [0.239116,     0.140102,     -0.0579274,     -0.127189,     -0.0676843,     -0.26248,     -0.711576,     -0.936124],
// CHECK-NEXT: [-0.218996,     -0.26059,     -0.343779,     -0.386661,     -0.389235,     -0.355165,     -0.284452,     -0.249095],
// CHECK-NEXT: [-0.102211,     -0.188309,     -0.360505,     -0.586473,     -0.866214,     -0.627884,     0.128516,     0.506717],
// CHECK-NEXT: [-0.0438182,     -0.152168,     -0.368868,     -0.68638,     -1.1047,     -0.764243,     0.335001,     0.884622]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}1.78863,     -1.86349],
// CHECK-NEXT: [0.411284,     -1.03916],
// CHECK-NEXT: [-0.199532,     -0.123126],
// CHECK-NEXT: [-0.0438182,     0.884622]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}1.78863,     1.11257,     0.379841,     0.153166,     -0.883498,     -1.86349],
// CHECK-NEXT: [0.937916,     0.524304,     0.0960266,     0.0373599,     -0.665828,     -1.35435],
// CHECK-NEXT: [-0.277388,     -0.316074,     -0.309423,     -0.128078,     -0.354871,     -0.627001],
// CHECK-NEXT: [-0.139994,     -0.283394,     -0.49015,     -0.743575,     -0.272371,     0.262189],
// CHECK-NEXT: [-0.0438182,     -0.260518,     -0.616659,     -1.17442,     -0.214621,     0.884622]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}2.16331,     1.68395,     0.899432,     0.345674,     0.377264,     -0.405157,     -1.53024,     -2.21637],
// CHECK-NEXT: [1.42316,     1.07997,     0.516738,     0.174949,     0.282074,     -0.311191,     -1.24897,     -1.81955],
// CHECK-NEXT: [0.20072,     0.0828049,     -0.114513,     -0.0999466,     0.141195,     -0.147408,     -0.796256,     -1.18831],
// CHECK-NEXT: [-0.439882,     -0.450716,     -0.469619,     -0.457062,     -0.424631,     -0.320259,     -0.202418,     -0.130228],
// CHECK-NEXT: [-0.136894,     -0.219307,     -0.348049,     -0.694731,     -1.09588,     -0.732134,     0.197205,     0.757198],
// CHECK-NEXT: [0.0304867,     -0.0923592,     -0.282862,     -0.843309,     -1.5066,     -0.980649,     0.446894,     1.30643]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}2.05125,     1.66035,     0.832582,     0.358476,     0.296238,     -0.372346,     -1.56352,     -2.126],
// CHECK-NEXT: [0.867172,     0.663571,     0.232333,     0.0567211,     0.167056,     -0.236645,     -1.09409,     -1.49892],
// CHECK-NEXT: [-0.360626,     -0.378329,     -0.415893,     -0.384111,     -0.280342,     -0.265777,     -0.335513,     -0.368406],
// CHECK-NEXT: [-0.0595635,     -0.149504,     -0.339701,     -0.686121,     -1.17539,     -0.803065,     0.349796,     0.893964]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}-0.783327,     -2.01276,     0.42578,     -2.14854,     0.375056,     0.296888],
// CHECK-NEXT: [-1.04499,     2.26386,     -4.14618,     1.03558,     -3.38643,     2.9669],
// CHECK-NEXT: [-0.656334,     -0.280538,     -0.198843,     2.17605,     2.08884,     4.5939],
// CHECK-NEXT: [3.69643,     -2.20129,     -0.461299,     1.52074,     -1.24306,     0.184873],
// CHECK-NEXT: [-0.814527,     -2.36909,     0.185932,     2.50206,     0.850529,     2.76218],
// CHECK-NEXT: [-0.673374,     0.994818,     2.14009,     -0.982382,     1.62353,     -1.37359]],
// CHECK-NEXT: {{\[\[}}-2.87474,     -0.600803,     -2.06209,     -2.14731,     -0.835693,     -1.14078],
// CHECK-NEXT: [-0.421474,     3.65921,     -2.24578,     -0.346095,     0.865785,     -3.22414],
// CHECK-NEXT: [-1.72425,     -1.17366,     -1.0645,     0.608263,     2.46545,     -0.264923],
// CHECK-NEXT: [-1.51767,     0.343804,     2.14433,     2.17632,     1.92772,     -1.34193],
// CHECK-NEXT: [-2.99068,     -2.03221,     -0.170305,     -0.0743728,     0.694707,     -0.311726],
// CHECK-NEXT: [-1.81437,     -1.77551,     0.416763,     -0.923423,     0.126604,     -1.13405]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0.611513,    1.23347,    0.538745,    -1.4205,    1.23347],
// CHECK-NEXT: [-2.20432,    0.148986,    -1.09199,    1.79017,    0.148986],
// CHECK-NEXT: [-0.998632,    -0.530582,    -0.483546,    -0.157982,    -0.530582],
// CHECK-NEXT: [-1.26974,    -0.730527,    -0.0104293,    -0.960675,    -0.730527],
// CHECK-NEXT: [0.584798,    0.645062,    0.269906,    -0.963861,    0.645062],
// CHECK-NEXT: [0.621725,    0.31306,    0.0398157,    0.883559,    0.31306]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}0.323299,     0],
// CHECK-NEXT: [0.381436,     0]]],
// CHECK-NEXT: {{\[\[\[}}0.498099,     0],
// CHECK-NEXT: [0.470988,     0]]]]
