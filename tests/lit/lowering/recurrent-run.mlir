// Numerics of the lstm / gru / rnn lowerings through upstream MLIR's CPU
// pipeline and mlir-runner. Expected values are onnxruntime's for the same
// ONNX LSTM / GRU / RNN nodes (peepholes, initial states, clip, activations
// with alpha/beta, both linear_before_reset settings, all directions).
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-libm --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @lstm(%x: tensor<3x2x3xf32>, %w: tensor<2x8x3xf32>, %r: tensor<2x8x2xf32>, %b: tensor<2x16xf32>, %p: tensor<2x6xf32>, %h0: tensor<2x2x2xf32>, %c0: tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>) {
  %y, %y_h, %y_c = kiln.lstm bidirectional %x, %w, %r, %b, %p initial(%h0, %c0 : tensor<2x2x2xf32>, tensor<2x2x2xf32>)
      {activations = ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"], hidden_size = 2 : i64}
      : tensor<3x2x3xf32>, tensor<2x8x3xf32>, tensor<2x8x2xf32>, tensor<2x16xf32>, tensor<2x6xf32>
  return %y, %y_h, %y_c : tensor<3x2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>
}

func.func @lstm_clip(%x: tensor<3x2x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>, %b: tensor<1x16xf32>, %p: tensor<1x6xf32>) -> (tensor<3x1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) {
  %y, %y_h, %y_c = kiln.lstm forward %x, %w, %r, %b, %p
      {activations = ["hard_sigmoid", "tanh", "softsign"], activation_alpha = array<f32: 0.3, 0.0, 0.0>,
       activation_beta = array<f32: 0.4, 0.0, 0.0>, clip = 0.7 : f32, hidden_size = 2 : i64}
      : tensor<3x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x16xf32>, tensor<1x6xf32>
  return %y, %y_h, %y_c : tensor<3x1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>
}

func.func @gru_lbr0(%x: tensor<3x2x3xf32>, %w: tensor<2x6x3xf32>, %r: tensor<2x6x2xf32>, %b: tensor<2x12xf32>, %h0: tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>) {
  %y, %y_h = kiln.gru bidirectional %x, %w, %r, %b initial(%h0 : tensor<2x2x2xf32>)
      {activations = ["sigmoid", "tanh", "sigmoid", "tanh"], hidden_size = 2 : i64, linear_before_reset = false}
      : tensor<3x2x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>, tensor<2x12xf32>
  return %y, %y_h : tensor<3x2x2x2xf32>, tensor<2x2x2xf32>
}

func.func @gru_lbr1(%x: tensor<3x2x3xf32>, %w: tensor<2x6x3xf32>, %r: tensor<2x6x2xf32>, %b: tensor<2x12xf32>, %h0: tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>) {
  %y, %y_h = kiln.gru bidirectional %x, %w, %r, %b initial(%h0 : tensor<2x2x2xf32>)
      {activations = ["sigmoid", "tanh", "sigmoid", "tanh"], hidden_size = 2 : i64, linear_before_reset = true}
      : tensor<3x2x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>, tensor<2x12xf32>
  return %y, %y_h : tensor<3x2x2x2xf32>, tensor<2x2x2xf32>
}

func.func @rnn(%x: tensor<3x2x3xf32>, %w: tensor<1x2x3xf32>, %r: tensor<1x2x2xf32>, %b: tensor<1x4xf32>, %h0: tensor<1x2x2xf32>) -> (tensor<3x1x2x2xf32>, tensor<1x2x2xf32>) {
  %y, %y_h = kiln.rnn reverse %x, %w, %r, %b initial(%h0 : tensor<1x2x2xf32>)
      {activations = ["relu"], hidden_size = 2 : i64}
      : tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>
  return %y, %y_h : tensor<3x1x2x2xf32>, tensor<1x2x2xf32>
}

func.func @main_lstm() {
  %in0 = arith.constant dense<[[[-0.20837893 , -0.028133413, -1.0680981  ],  [ 0.8201354  , -0.8967178  , -0.42087367 ]], [[ 0.2514407  , -0.62264407 , -0.5289761  ],  [-0.4545038  ,  0.27572703 ,  1.146104   ]], [[ 0.020769697, -0.5589627  ,  0.26952916 ],  [-0.29807985 , -0.009565248,  0.58750063 ]]]> : tensor<3x2x3xf32>
  %in1 = arith.constant dense<[[[-3.73935461e-01,  4.51262528e-03, -4.39053953e-01],  [-7.82170817e-02,  1.28285229e-01, -4.94389534e-01],  [-1.69410989e-01, -1.18092015e-01, -3.18827510e-01],  [-5.93806148e-01, -7.10608602e-01, -7.67475963e-02],  [-1.34528473e-01,  1.11568344e+00, -1.21738374e+00],  [ 5.63632511e-02,  1.85222268e-01,  6.79816902e-01],  [ 2.50928611e-01, -4.22106862e-01,  4.88073601e-06],  [ 2.71176279e-01, -1.56754091e-01,  3.85505855e-01]], [[-9.34045315e-01,  8.65592360e-01,  7.33839035e-01],  [-1.67838663e-01,  3.05670381e-01,  2.39852965e-02],  [-4.14567649e-01,  4.38551083e-02,  5.00182927e-01],  [-1.90546259e-01, -1.87834710e-01, -3.72353829e-02],  [ 2.16748163e-01,  6.39189601e-01, -3.17339659e-01],  [ 2.54198134e-01,  1.08058006e-01, -9.29306209e-01],  [-2.09658235e-01, -6.61644489e-02, -1.97851192e-02],  [ 1.63001716e-01, -1.02016151e+00,  2.31277607e-02]]]> : tensor<2x8x3xf32>
  %in2 = arith.constant dense<[[[-0.3388378  , -0.7197195  ],  [ 0.2621482  ,  0.36763978 ],  [-0.32662514 ,  0.42122814 ],  [-0.19075824 ,  0.033244506],  [-0.54936945 ,  0.79224354 ],  [-1.3297247  , -0.04572631 ],  [ 0.3475598  , -1.0167333  ],  [-0.09473463 , -0.038609333]], [[ 0.4123515  ,  0.62410647 ],  [-0.20194614 , -0.6922593  ],  [ 0.6836177  ,  0.6089428  ],  [-0.23100267 ,  0.17544425 ],  [ 0.19093312 ,  0.2831377  ],  [ 0.102103986,  0.7033481  ],  [-0.86897975 ,  0.52041197 ],  [ 0.19023599 , -0.10856763 ]]]> : tensor<2x8x2xf32>
  %in3 = arith.constant dense<[[ 0.58676577, -1.1718016 ,  0.5807607 ,  0.19303903, -0.56656665,  0.21654628, -0.15204322,  1.2926475 ,  0.9176664 ,  0.22034493, -0.35962692, -0.2917073 , -0.16252482, -0.28011724, -0.45112303, -0.29548615], [-0.13808975, -0.25844195, -0.34929496, -0.46444595,  1.2752191 , -0.73658663, -0.5107074 ,  0.21619785, -0.16179003,  0.21191235,  0.39959   ,  0.6313068 ,  0.37598243, -0.4968805 ,  0.5545716 , -0.88245887]]> : tensor<2x16xf32>
  %in4 = arith.constant dense<[[ 0.89629644  , -0.21450666  ,  0.348099    ,  0.34870812  ,  0.3007579   ,  0.0018297454], [-0.11412378  , -1.0348061   ,  0.30507204  ,  0.21174845  ,  0.5589434   , -0.13712105  ]]> : tensor<2x6xf32>
  %in5 = arith.constant dense<[[[-0.05721065, -0.2490871 ],  [-0.5303995 ,  0.29583326]], [[-0.09162828,  0.5099274 ],  [-0.74123275,  0.42315593]]]> : tensor<2x2x2xf32>
  %in6 = arith.constant dense<[[[ 0.24897008 ,  0.063252084],  [-0.7094053  , -0.12588707 ]], [[-0.7733373  , -1.0413259  ],  [ 1.6398727  ,  0.48543066 ]]]> : tensor<2x2x2xf32>
  %r0, %r1, %r2 = call @lstm(%in0, %in1, %in2, %in3, %in4, %in5, %in6) : (tensor<3x2x3xf32>, tensor<2x8x3xf32>, tensor<2x8x2xf32>, tensor<2x16xf32>, tensor<2x6xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r2 : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}
func.func @main_lstm_clip() {
  %in0 = arith.constant dense<[[[ 0.8709061  , -0.22375044 , -0.6277136  ],  [ 0.46908185 , -0.23417313 , -0.62736017 ]], [[ 0.062411822,  0.37825108 ,  0.12071981 ],  [ 0.24871282 ,  2.0543463  ,  0.41056043 ]], [[ 0.76588017 , -0.9929229  ,  0.18252675 ],  [ 0.387041   , -0.18223955 , -0.43798974 ]]]> : tensor<3x2x3xf32>
  %in1 = arith.constant dense<[[[ 0.59478027, -0.47192615, -0.8906334 ],  [ 1.7242509 ,  2.0033493 ,  0.45394397],  [-0.68134177,  0.77155614,  1.2441876 ],  [ 0.945933  , -2.1800466 , -0.5070267 ],  [ 0.5387    ,  0.9333306 ,  1.4411728 ],  [ 1.1375555 , -1.7014778 , -1.0611314 ],  [-1.8321437 ,  2.7067149 ,  0.2706147 ],  [ 0.8297465 ,  1.5495436 , -0.49350366]]]> : tensor<1x8x3xf32>
  %in2 = arith.constant dense<[[[-0.5755015  , -0.21326123 ],  [-0.0740736  ,  0.7507185  ],  [ 0.4347991  , -0.5435453  ],  [ 0.3321107  ,  0.36744234 ],  [-0.53068286 , -0.054258414],  [-0.925202   ,  0.16524403 ],  [-0.1578466  , -0.675001   ],  [-0.3490855  ,  0.1199756  ]]]> : tensor<1x8x2xf32>
  %in3 = arith.constant dense<[[-0.2764747  ,  0.1497634  ,  0.27633184 , -0.4202215  , -0.15613534 ,  1.072339   ,  0.06055279 , -0.42341438 ,  0.030231224, -0.6692944  ,  0.56637305 ,  0.18515243 ,  0.5429032  ,  0.4510897  ,  0.19514823 ,  0.4877547  ]]> : tensor<1x16xf32>
  %in4 = arith.constant dense<[[0., 0., 0., 0., 0., 0.]]> : tensor<1x6xf32>
  %r0, %r1, %r2 = call @lstm_clip(%in0, %in1, %in2, %in3, %in4) : (tensor<3x2x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>, tensor<1x16xf32>, tensor<1x6xf32>) -> (tensor<3x1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %u2 = tensor.cast %r2 : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gru_lbr0() {
  %in0 = arith.constant dense<[[[ 0.095786825, -0.33110452 , -0.5117575  ],  [-0.22408742 , -1.252729   ,  0.91299725 ]], [[-0.8570337  , -0.03831978 , -0.6587836  ],  [-1.0127968  , -0.041122686, -0.15233329 ]], [[-0.079862066,  0.27447328 , -0.30918774 ],  [ 0.18939723 ,  0.2566257  , -0.16742206 ]]]> : tensor<3x2x3xf32>
  %in1 = arith.constant dense<[[[-1.4175975e-01,  2.6921213e-01,  2.8625473e-02],  [ 7.9544246e-02, -1.1872014e+00,  2.9259969e-02],  [ 1.8827295e-01, -6.7739882e-02,  1.6795419e-01],  [ 9.5218796e-01,  4.2682216e-02,  3.3266714e-01],  [-4.2499775e-01, -4.2617089e-01, -2.3999256e-01],  [-5.0982457e-01, -3.8005691e-03, -4.6691534e-01]], [[-8.7498419e-02, -7.1857172e-01, -8.2610017e-01],  [-3.3783090e-01, -5.3353357e-01, -3.2646558e-01],  [-3.0604738e-01, -1.7563123e-01,  5.2273899e-01],  [ 6.8450803e-01,  3.6267662e-01, -1.7973723e-01],  [ 7.4847591e-01, -7.6555556e-01, -1.0116819e+00],  [ 1.3398629e-01, -1.1032227e-03, -6.9645941e-02]]]> : tensor<2x6x3xf32>
  %in2 = arith.constant dense<[[[ 0.016282735, -0.82028013 ],  [-0.5783496  ,  0.6170173  ],  [ 0.51409245 , -0.36093986 ],  [ 0.9665785  , -0.5353982  ],  [-0.2856908  ,  0.14621603 ],  [-0.59749997 , -0.24396527 ]], [[-0.08653558 , -0.1976732  ],  [ 0.4354204  ,  0.2964034  ],  [-0.54964864 , -0.34076533 ],  [ 0.090033345, -0.033465523],  [-0.39387476 ,  0.21237683 ],  [ 0.40994257 , -0.31555933 ]]]> : tensor<2x6x2xf32>
  %in3 = arith.constant dense<[[ 0.39452982 , -0.8108369  , -0.80524963 ,  0.24996988 , -0.4172576  , -0.49847984 , -0.13169403 , -0.33868024 ,  0.16353352 , -0.7276797  , -0.18575956 ,  1.580483   ], [ 0.054975506, -0.9567616  ,  0.29991022 ,  0.27469224 ,  0.69189054 ,  0.07417462 , -0.32677072 ,  0.704417   ,  0.3560306  , -0.900358   ,  0.37379947 , -0.1164485  ]]> : tensor<2x12xf32>
  %in4 = arith.constant dense<[[[ 0.55532265 , -0.18666941 ],  [ 0.39307302 ,  0.09708435 ]], [[ 0.29310206 , -0.010193646],  [-0.2072043  ,  0.033656705]]]> : tensor<2x2x2xf32>
  %r0, %r1 = call @gru_lbr0(%in0, %in1, %in2, %in3, %in4) : (tensor<3x2x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>, tensor<2x12xf32>, tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gru_lbr1() {
  %in0 = arith.constant dense<[[[ 0.31589946 ,  0.20879637 ,  0.80758816 ],  [ 0.21280311 ,  0.31768188 ,  1.0511147  ]], [[ 0.033063207,  0.26777917 , -0.3015704  ],  [ 0.020978814,  0.8209573  ,  0.15584886 ]], [[ 0.7255849  , -0.53246397 , -0.7004227  ],  [ 0.15376276 , -0.68481934 ,  1.3351686  ]]]> : tensor<3x2x3xf32>
  %in1 = arith.constant dense<[[[ 0.62422514 , -0.6228633  , -0.08358439 ],  [-0.28830546 ,  0.20801087 , -0.02892363 ],  [ 0.46594366 ,  0.7341661  , -0.11066047 ],  [-0.58657783 ,  0.28133455 , -0.08225753 ],  [ 0.5724277  , -0.07605884 ,  0.41489452 ],  [ 0.16803297 , -0.09452203 , -0.2246643  ]], [[ 0.35676223 ,  1.2648674  ,  0.4188079  ],  [-0.0658412  ,  0.35379642 ,  0.057026938],  [-0.6404476  ,  0.15492314 ,  0.77414536 ],  [-0.15791403 , -0.56295186 ,  0.24424833 ],  [ 0.91547334 ,  0.470088   ,  0.5093585  ],  [ 1.1511891  ,  0.8105465  ,  0.35634163 ]]]> : tensor<2x6x3xf32>
  %in2 = arith.constant dense<[[[-0.10435181 ,  0.068808995],  [-0.051676083,  0.4241753  ],  [-0.44156277 ,  0.7726934  ],  [ 0.07292004 , -0.20005302 ],  [ 0.40760303 , -1.0374612  ],  [-0.4172187  , -0.3288592  ]], [[ 0.41028216 , -0.2445785  ],  [ 0.7124835  , -0.22342895 ],  [ 0.2605547  , -0.3540972  ],  [ 0.5777653  , -0.12726523 ],  [ 0.25946248 , -0.24649745 ],  [-0.5432741  , -0.11545875 ]]]> : tensor<2x6x2xf32>
  %in3 = arith.constant dense<[[ 0.54900503 , -0.508939   , -0.7646957  , -0.15399387 ,  0.39037716 , -0.5279198  , -0.2719417  ,  0.09215087 , -0.16533792 ,  0.1436041  ,  0.59476405 ,  0.010600774], [-0.03270484 ,  0.38305795 , -0.030817542, -0.47644857 , -0.50723153 , -0.55763197 ,  0.9563003  , -0.022631602,  0.28845486 ,  0.35890284 , -0.4694995  ,  0.31438792 ]]> : tensor<2x12xf32>
  %in4 = arith.constant dense<[[[-0.2822467  , -1.0439037  ],  [-0.107525066, -0.53751427 ]], [[-0.16898608 ,  0.17160636 ],  [ 1.1412698  , -0.24788943 ]]]> : tensor<2x2x2xf32>
  %r0, %r1 = call @gru_lbr1(%in0, %in1, %in2, %in3, %in4) : (tensor<3x2x3xf32>, tensor<2x6x3xf32>, tensor<2x6x2xf32>, tensor<2x12xf32>, tensor<2x2x2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  return
}
func.func @main_rnn() {
  %in0 = arith.constant dense<[[[-0.08198141 ,  0.18581109 ,  0.09326076 ],  [-0.07921461 , -0.5414648  , -0.47831276 ]], [[-0.091688365, -0.5799034  , -0.32888418 ],  [-0.6257242  ,  0.56224144 , -0.7489199  ]], [[ 0.9510086  , -0.29019153 , -0.52745783 ],  [-0.5913786  ,  0.38974002 ,  0.513299   ]]]> : tensor<3x2x3xf32>
  %in1 = arith.constant dense<[[[-0.424333  ,  0.16576983, -0.07479568],  [-0.1212203 ,  0.07559859,  0.38253474]]]> : tensor<1x2x3xf32>
  %in2 = arith.constant dense<[[[-0.95831525 , -1.1136706  ],  [ 0.10334495 , -0.035438176]]]> : tensor<1x2x2xf32>
  %in3 = arith.constant dense<[[ 0.34238   , -0.85376954, -0.49328482,  0.77176815]]> : tensor<1x4xf32>
  %in4 = arith.constant dense<[[[-0.6551353 ,  0.18171698],  [-0.39743623, -0.20264313]]]> : tensor<1x2x2xf32>
  %r0, %r1 = call @rnn(%in0, %in1, %in2, %in3, %in4) : (tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>, tensor<1x2x2xf32>) -> (tensor<3x1x2x2xf32>, tensor<1x2x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  call @main_lstm() : () -> ()
  call @main_lstm_clip() : () -> ()
  call @main_gru_lbr0() : () -> ()
  call @main_gru_lbr1() : () -> ()
  call @main_rnn() : () -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(tensor<*xi64>) attributes {llvm.emit_c_interface}

// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}-0.123,     0.111555],
// CHECK-NEXT: [-0.281993,     0.0946883]],
// CHECK-NEXT: {{\[\[}}-0.0673885,     -0.195903],
// CHECK-NEXT: [0.457249,     0.0516355]]],
// CHECK-NEXT: {{\[\[\[}}-0.222538,     0.178791],
// CHECK-NEXT: [-0.246006,     0.140221]],
// CHECK-NEXT: {{\[\[}}-0.0876089,     -0.0675571],
// CHECK-NEXT: [0.737333,     -0.183417]]],
// CHECK-NEXT: {{\[\[\[}}-0.238951,     0.215882],
// CHECK-NEXT: [-0.276527,     0.191983]],
// CHECK-NEXT: {{\[\[}}-0.205677,     -0.202432],
// CHECK-NEXT: [0.658503,     -0.101419]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}-0.238951,    0.215882],
// CHECK-NEXT: [-0.276527,    0.191983]],
// CHECK-NEXT: {{\[\[}}-0.0673885,    -0.195903],
// CHECK-NEXT: [0.457249,    0.0516355]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}-0.469899,    0.370563],
// CHECK-NEXT: [-0.61906,    0.361366]],
// CHECK-NEXT: {{\[\[}}-0.187156,    -0.376289],
// CHECK-NEXT: [1.1786,    0.102916]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}-0.0511785,     0.135986],
// CHECK-NEXT: [-0.0723396,     0.0549934]]],
// CHECK-NEXT: {{\[\[\[}}-0.041411,     0.0633636],
// CHECK-NEXT: [-0.0604779,     0.0530621]]],
// CHECK-NEXT: {{\[\[\[}}-0.0860311,     0.0975624],
// CHECK-NEXT: [-0.094479,     0.152236]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}-0.0860311,    0.0975624],
// CHECK-NEXT: [-0.094479,    0.152236]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}-0.369551,    0.190389],
// CHECK-NEXT: [-0.367602,    0.332564]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}0.137784,     0.58742],
// CHECK-NEXT: [0.0673161,     0.316939]],
// CHECK-NEXT: {{\[\[}}0.771434,     0.0678475],
// CHECK-NEXT: [0.538015,     -0.0269194]]],
// CHECK-NEXT: {{\[\[\[}}0.0321396,     0.842305],
// CHECK-NEXT: [-0.0181143,     0.767286]],
// CHECK-NEXT: {{\[\[}}0.645849,     0.0169093],
// CHECK-NEXT: [0.385091,     -0.0388245]]],
// CHECK-NEXT: {{\[\[\[}}-0.294636,     0.837819],
// CHECK-NEXT: [-0.364845,     0.765122]],
// CHECK-NEXT: {{\[\[}}0.563484,     0.0161204],
// CHECK-NEXT: [0.40267,     -0.0265995]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}-0.294636,    0.837819],
// CHECK-NEXT: [-0.364845,    0.765122]],
// CHECK-NEXT: {{\[\[}}0.771434,    0.0678475],
// CHECK-NEXT: [0.538015,    -0.0269194]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}0.210536,     -0.594918],
// CHECK-NEXT: [0.34062,     -0.557445]],
// CHECK-NEXT: {{\[\[}}-0.361092,     0.14484],
// CHECK-NEXT: [0.72073,     -0.115698]]],
// CHECK-NEXT: {{\[\[\[}}0.350803,     -0.463027],
// CHECK-NEXT: [0.520362,     -0.547731]],
// CHECK-NEXT: {{\[\[}}-0.426613,     -0.11875],
// CHECK-NEXT: [0.776696,     -0.239202]]],
// CHECK-NEXT: {{\[\[\[}}0.430897,     -0.266765],
// CHECK-NEXT: [0.634458,     -0.609409]],
// CHECK-NEXT: {{\[\[}}-0.345617,     -0.0354796],
// CHECK-NEXT: [0.854173,     -0.336075]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0.430897,    -0.266765],
// CHECK-NEXT: [0.634458,    -0.609409]],
// CHECK-NEXT: {{\[\[}}-0.361092,    0.14484],
// CHECK-NEXT: [0.72073,    -0.115698]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[\[}}0,     0],
// CHECK-NEXT: [0,     0]]],
// CHECK-NEXT: {{\[\[\[}}0,     0],
// CHECK-NEXT: [0,     0]]],
// CHECK-NEXT: {{\[\[\[}}0,     0],
// CHECK-NEXT: [0.732798,     0.181612]]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0,    0],
// CHECK-NEXT: [0,    0]]]
